//! How the input was written: indentation, what follows the last brace, and which program's key order
//! (Terraform's or OpenTofu's) a re-rendered instance must follow, judged by evidence in the file.

use crate::json::keys::folds_to_field;
use crate::json::{Layout, Span};
use crate::state::model::{Resource, State};

/// Instance fields in Terraform's writer order (`instanceObjectStateV4`). Fields Terraform never writes
/// (OpenTofu's) come last so a Terraform-flavoured file that somehow holds them keeps them.
pub const TERRAFORM_INSTANCE_ORDER: &[&str] = &[
    "index_key",
    "status",
    "deposed",
    "schema_version",
    "attributes",
    "attributes_flat",
    "sensitive_attributes",
    "identity_schema_version",
    "identity",
    "private",
    "dependencies",
    "depends_on",
    "create_before_destroy",
    "provider",
    "skip_destroy",
];

/// Instance fields in OpenTofu's writer order (1.12 and main): every field either program writes, so
/// also the set of fields the parser knows.
pub const OPENTOFU_INSTANCE_ORDER: &[&str] = &[
    "index_key",
    "status",
    "deposed",
    "provider",
    "schema_version",
    "attributes",
    "attributes_flat",
    "sensitive_attributes",
    "private",
    "dependencies",
    "depends_on",
    "create_before_destroy",
    "skip_destroy",
    "identity",
    "identity_schema_version",
];

/// A field of an instance object: its place in [`OPENTOFU_INSTANCE_ORDER`]. The parser meets several
/// in each of a state's instances, and naming them by a number instead of by text saves searching
/// the lists again for each (finding a key's field, then its place in each writer's order, then
/// matching it by name were a twentieth of a parse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstanceField(u8);

impl InstanceField {
    pub const INDEX_KEY: Self = Self(0);
    pub const STATUS: Self = Self(1);
    pub const DEPOSED: Self = Self(2);
    pub const PROVIDER: Self = Self(3);
    pub const SCHEMA_VERSION: Self = Self(4);
    pub const ATTRIBUTES: Self = Self(5);
    pub const ATTRIBUTES_FLAT: Self = Self(6);
    pub const SENSITIVE_ATTRIBUTES: Self = Self(7);
    pub const PRIVATE: Self = Self(8);
    pub const DEPENDENCIES: Self = Self(9);
    pub const DEPENDS_ON: Self = Self(10);
    pub const CREATE_BEFORE_DESTROY: Self = Self(11);
    pub const SKIP_DESTROY: Self = Self(12);
    pub const IDENTITY: Self = Self(13);
    pub const IDENTITY_SCHEMA_VERSION: Self = Self(14);

    /// The field a key names, as Go's reader matches it: exactly (by a `match` the compiler turns
    /// into a few word comparisons), or else folding case as it folds it ([`folds_to_field`]).
    pub fn of(key: &str) -> Option<Self> {
        let exact = match key {
            "index_key" => 0,
            "status" => 1,
            "deposed" => 2,
            "provider" => 3,
            "schema_version" => 4,
            "attributes" => 5,
            "attributes_flat" => 6,
            "sensitive_attributes" => 7,
            "private" => 8,
            "dependencies" => 9,
            "depends_on" => 10,
            "create_before_destroy" => 11,
            "skip_destroy" => 12,
            "identity" => 13,
            "identity_schema_version" => 14,
            _ => {
                return OPENTOFU_INSTANCE_ORDER
                    .iter()
                    .position(|name| folds_to_field(key, name))
                    .map(|rank| Self(rank as u8));
            }
        };
        Some(Self(exact))
    }

    /// The field's place in Terraform's order.
    fn terraform_rank(self) -> usize {
        TERRAFORM_RANKS[usize::from(self.0)]
    }
}

/// For each field of [`OPENTOFU_INSTANCE_ORDER`], its place in [`TERRAFORM_INSTANCE_ORDER`] (which
/// holds the same fields).
const TERRAFORM_RANKS: [usize; OPENTOFU_INSTANCE_ORDER.len()] = {
    const fn same(left: &str, right: &str) -> bool {
        let (left, right) = (left.as_bytes(), right.as_bytes());
        if left.len() != right.len() {
            return false;
        }
        let mut at = 0;
        while at < left.len() {
            if left[at] != right[at] {
                return false;
            }
            at += 1;
        }
        true
    }
    let mut ranks = [usize::MAX; OPENTOFU_INSTANCE_ORDER.len()];
    let mut field = 0;
    while field < OPENTOFU_INSTANCE_ORDER.len() {
        let mut rank = 0;
        while rank < TERRAFORM_INSTANCE_ORDER.len() {
            if same(
                OPENTOFU_INSTANCE_ORDER[field],
                TERRAFORM_INSTANCE_ORDER[rank],
            ) {
                ranks[field] = rank;
            }
            rank += 1;
        }
        assert!(
            ranks[field] != usize::MAX,
            "every instance field is in Terraform's order"
        );
        field += 1;
    }
    ranks
};

/// Which writer's conventions to follow when rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    Terraform,
    OpenTofu,
}

/// What decided a file's [`Flavour`], strongest first (see [`detect_flavour`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// More instances stand in that writer's key order (and not the other's) than in the other's.
    KeyOrder,
    /// Fields, or combinations of fields, that only that writer writes.
    Fields,
    /// Compact JSON or a `\n\n` ending, which only OpenTofu writes.
    Layout,
    /// Nothing else told; a provider comes from `registry.opentofu.org`.
    ProviderHost,
    /// Nothing in the file told: Terraform's conventions.
    Nothing,
}

/// Which writer last wrote `state`, so that a re-rendered instance comes out as that writer would
/// write it. Decided by evidence in the file, in order of strength; the first rule that tells wins:
///
/// 1. **The key order its instances already have.** The two writers order an instance's fields alike
///    except `provider` (OpenTofu: before `schema_version`; Terraform never writes it), and
///    `identity_schema_version` / `identity` (Terraform: `identity_schema_version`, `identity` right
///    after `sensitive_attributes`; OpenTofu: `identity`, `identity_schema_version` last, after
///    `private`, `dependencies`, `create_before_destroy` and `skip_destroy`). An instance whose known
///    keys stand in one order but not the other votes for that writer ([`KeyOrder`]); the majority
///    wins. Choosing the order the instances already follow is also what keeps their untouched fields
///    in place when one is re-rendered.
/// 2. **Fields only one writer writes.** OpenTofu: `skip_destroy` (1.12+), an instance-level
///    `provider` (1.9+); Terraform drops both when it rewrites a state. Terraform: an
///    `identity_schema_version` without an `identity` (Terraform 1.12+ writes it on every instance,
///    even `0`; OpenTofu reads and writes it only beside an identity). The side with more such
///    instances wins.
/// 3. **The layout.** Terraform always writes 2-space indented JSON ending in one `\n`. OpenTofu
///    1.8-1.11 writes compact JSON, and 1.12 indents local files after the fact, ending them in
///    `\n\n`: either means OpenTofu.
/// 4. **The provider host**, as a last tie-breaker: a provider from `registry.opentofu.org` means
///    OpenTofu. It decides only files in which nothing above tells, and there the two orders give the
///    same bytes for every field the file holds; it matters only for a field a refresh adds.
/// 5. Otherwise Terraform.
///
/// Not used, because they do not tell the writers apart: `check_results` (both write `null` when there
/// are no checks, since Terraform 1.4 and in every OpenTofu; `[]` appears only in older or hand-made
/// files) and `terraform_version` (each writes its own version; both have released 1.6 to 1.12, and
/// OpenTofu's own test fixtures carry `0.12.0` with `registry.opentofu.org` providers).
pub fn detect_flavour(state: &State<'_>) -> (Flavour, Evidence) {
    let mut tally = Tally::default();
    for resource in &state.resources {
        tally.add_resource(resource);
    }
    tally.flavour(&state.style)
}

/// The evidence of [`detect_flavour`] in the resources, counted one resource at a time: by the
/// parse as it reads each (while its records are in cache; the parts' tallies added), or over a
/// whole state. Only the layout is left to look at once every resource is counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// The instances in only Terraform's key order, less those in only OpenTofu's.
    order: i64,
    fields: Votes,
    opentofu_host: bool,
}

impl Tally {
    pub(crate) fn add_resource(&mut self, resource: &Resource<'_>) {
        self.order += i64::from(resource.key_order.0);
        self.opentofu_host |= resource
            .provider
            .as_ref()
            .is_some_and(|p| is_opentofu_host(&p.source));
        for instance in &resource.instances {
            if instance.provider.is_some() || instance.skip_destroy {
                self.fields.opentofu += 1;
            } else if instance.has_identity_schema_version() && instance.identity.is_none() {
                self.fields.terraform += 1;
            }
            self.opentofu_host |= instance
                .provider
                .as_ref()
                .is_some_and(|p| is_opentofu_host(&p.source));
        }
    }

    /// Both tallies' evidence: of one part of the resources and of the part after it.
    pub(crate) fn add(&mut self, other: Tally) {
        self.order += other.order;
        self.fields.terraform += other.fields.terraform;
        self.fields.opentofu += other.fields.opentofu;
        self.opentofu_host |= other.opentofu_host;
    }

    /// Who wrote a state whose resources this counted, laid out as `style` says.
    pub(crate) fn flavour(&self, style: &Style) -> (Flavour, Evidence) {
        if let Some(flavour) = OrderLean::winner(self.order) {
            (flavour, Evidence::KeyOrder)
        } else if let Some(flavour) = self.fields.winner() {
            (flavour, Evidence::Fields)
        } else if style.layout.indent.is_none() || style.trailer == "\n\n" {
            (Flavour::OpenTofu, Evidence::Layout)
        } else if self.opentofu_host {
            (Flavour::OpenTofu, Evidence::ProviderHost)
        } else {
            (Flavour::Terraform, Evidence::Nothing)
        }
    }
}

fn is_opentofu_host(source: &str) -> bool {
    source
        .get(.."registry.opentofu.org/".len())
        .is_some_and(|host| host.eq_ignore_ascii_case("registry.opentofu.org/"))
}

/// How a resource's instance objects lean: how many have their known fields in only Terraform's key
/// order, less how many in only OpenTofu's. Summed over the resources, its sign is the majority
/// (four bytes in the room a resource record already had, where each instance once kept its own).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OrderLean(i32);

impl OrderLean {
    /// Counts one instance object's order (see [`KeyOrder::writer`]).
    pub(crate) fn add(&mut self, vote: Option<Flavour>) {
        self.0 = match vote {
            Some(Flavour::Terraform) => self.0.saturating_add(1),
            Some(Flavour::OpenTofu) => self.0.saturating_sub(1),
            None => self.0,
        };
    }

    /// The writer a sum of leans speaks for; none when it is even (or no instance told).
    fn winner(sum: i64) -> Option<Flavour> {
        match sum.cmp(&0) {
            std::cmp::Ordering::Greater => Some(Flavour::Terraform),
            std::cmp::Ordering::Less => Some(Flavour::OpenTofu),
            std::cmp::Ordering::Equal => None,
        }
    }
}

/// Instances speaking for each writer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Votes {
    terraform: usize,
    opentofu: usize,
}

impl Votes {
    /// The side with more votes; none on a tie (no votes at all included).
    fn winner(&self) -> Option<Flavour> {
        match self.terraform.cmp(&self.opentofu) {
            std::cmp::Ordering::Greater => Some(Flavour::Terraform),
            std::cmp::Ordering::Less => Some(Flavour::OpenTofu),
            std::cmp::Ordering::Equal => None,
        }
    }
}

/// Learns, key by key as the parser meets them, whether an instance object's known fields stand in
/// Terraform's order, OpenTofu's, both (it holds no pair of fields the two place differently) or
/// neither (hand-edited).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyOrder {
    terraform: Sorted,
    opentofu: Sorted,
}

#[derive(Debug, Clone, Copy, Default)]
struct Sorted {
    last: usize,
    broken: bool,
}

impl Sorted {
    fn see(&mut self, rank: usize) {
        self.broken |= rank < self.last;
        self.last = rank;
    }
}

impl KeyOrder {
    /// Notes the next known field; other keys say nothing.
    pub fn see(&mut self, field: InstanceField) {
        self.terraform.see(field.terraform_rank());
        self.opentofu.see(usize::from(field.0));
    }

    /// The one writer whose order the keys seen so far follow, if only one's.
    pub fn writer(&self) -> Option<Flavour> {
        match (self.terraform.broken, self.opentofu.broken) {
            (false, true) => Some(Flavour::Terraform),
            (true, false) => Some(Flavour::OpenTofu),
            _ => None,
        }
    }
}

/// The input's layout, detected once and kept for every rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    pub layout: Layout,
    /// The bytes after the closing brace: Terraform's `\n`, OpenTofu 1.12's `\n\n`, or nothing.
    pub trailer: String,
    pub flavour: Flavour,
}

impl Style {
    /// Reads the layout from the whitespace between the top-level `{` and its first key.
    pub fn detect(source: &str, document: Span, flavour: Flavour) -> Style {
        let after_brace = &source[document.start + 1..];
        let gap = &after_brace[..after_brace.len() - after_brace.trim_start().len()];
        let layout = match gap.rfind('\n') {
            Some(newline) if newline + 1 < gap.len() => Layout::indented(&gap[newline + 1..]),
            _ => Layout::compact(),
        };
        Style {
            layout,
            trailer: source[document.end..].to_owned(),
            flavour,
        }
    }
}

/// The whitespace that starts the line on which `at` stands, when only whitespace precedes `at` on
/// that line: the indentation a re-rendered value must keep.
pub fn line_indent(source: &str, at: usize) -> Option<&str> {
    let line_start = source[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let prefix = &source[line_start..at];
    prefix
        .bytes()
        .all(|byte| byte == b' ' || byte == b'\t')
        .then_some(prefix)
}

#[cfg(test)]
mod tests {
    use super::{
        Evidence, Flavour, InstanceField, KeyOrder, OPENTOFU_INSTANCE_ORDER,
        TERRAFORM_INSTANCE_ORDER, detect_flavour,
    };
    use crate::state::parse;

    /// A one-resource state with `instances` as written, from `host`, Terraform's layout.
    fn state_text(host: &str, instances: &str) -> String {
        format!(
            "{{\n  \"version\": 4,\n  \"terraform_version\": \"1.15.5\",\n  \"serial\": 1,\n  \"lineage\": \"l\",\n  \"outputs\": {{}},\n  \"resources\": [\n    {{\n      \"mode\": \"managed\",\n      \"type\": \"aws_instance\",\n      \"name\": \"web\",\n      \"provider\": \"provider[\\\"{host}/hashicorp/aws\\\"]\",\n      \"instances\": [{instances}]\n    }}\n  ],\n  \"check_results\": null\n}}\n"
        )
    }

    fn judged(text: &str) -> (Flavour, Evidence) {
        detect_flavour(&parse(text.as_bytes()).unwrap())
    }

    const OPENTOFU: &str = "registry.opentofu.org";
    const TERRAFORM: &str = "registry.terraform.io";

    /// Each case: its name, the registry the state's providers name, one instance object, and
    /// the writer and evidence the state is judged by.
    fn judges(cases: &[(&str, &str, &str, (Flavour, Evidence))]) {
        for (case, registry, instance, expected) in cases {
            assert_eq!(judged(&state_text(registry, instance)), *expected, "{case}");
        }
    }

    #[test]
    fn terraforms_key_order_beats_the_opentofu_registry() {
        judges(&[
            (
                "private last",
                OPENTOFU,
                r#"{"schema_version": 0, "attributes": {}, "sensitive_attributes": [], "identity_schema_version": 0, "private": "cA=="}"#,
                (Flavour::Terraform, Evidence::KeyOrder),
            ),
            (
                "identity after its version",
                OPENTOFU,
                r#"{"schema_version": 0, "attributes": {}, "identity_schema_version": 1, "identity": {"id": "i"}}"#,
                (Flavour::Terraform, Evidence::KeyOrder),
            ),
        ]);
    }

    #[test]
    fn opentofus_key_order_beats_the_terraform_registry() {
        judges(&[
            (
                "provider first",
                TERRAFORM,
                r#"{"provider": "provider[\"registry.terraform.io/hashicorp/aws\"]", "schema_version": 0, "attributes": {}}"#,
                (Flavour::OpenTofu, Evidence::KeyOrder),
            ),
            (
                "identity before its version",
                TERRAFORM,
                r#"{"schema_version": 0, "attributes": {}, "private": "cA==", "identity": {"id": "i"}, "identity_schema_version": 0}"#,
                (Flavour::OpenTofu, Evidence::KeyOrder),
            ),
        ]);
    }

    #[test]
    fn the_majority_of_instances_decides_and_a_tie_falls_through() {
        let terraform = r#"{"schema_version": 0, "identity_schema_version": 0, "private": "cA=="}"#;
        let opentofu = r#"{"schema_version": 0, "private": "cA==", "identity": {}, "identity_schema_version": 0}"#;
        let [two_to_one, tie] = [
            format!(
                r#"{{"index_key": 0, {}, {{"index_key": 1, {}, {{"index_key": 2, {}"#,
                &terraform[1..],
                &terraform[1..],
                &opentofu[1..]
            ),
            format!(
                r#"{{"index_key": 0, {}, {{"index_key": 1, {}"#,
                &terraform[1..],
                &opentofu[1..]
            ),
        ];
        assert_eq!(
            judged(&state_text(OPENTOFU, &two_to_one)),
            (Flavour::Terraform, Evidence::KeyOrder)
        );
        // One each, and the identity-less instance says Terraform by its fields.
        assert_eq!(
            judged(&state_text(OPENTOFU, &tie)),
            (Flavour::Terraform, Evidence::Fields)
        );
    }

    #[test]
    fn fields_only_one_writer_writes_decide_when_the_order_does_not() {
        // Terraform 1.12+ writes identity_schema_version on every object; OpenTofu only beside an
        // identity. No pair of fields here stands differently in the two orders.
        judges(&[
            (
                "identity_schema_version without an identity",
                OPENTOFU,
                r#"{"schema_version": 0, "attributes": {}, "sensitive_attributes": [], "identity_schema_version": 0}"#,
                (Flavour::Terraform, Evidence::Fields),
            ),
            (
                "skip_destroy",
                TERRAFORM,
                r#"{"schema_version": 0, "attributes": {}, "skip_destroy": true}"#,
                (Flavour::OpenTofu, Evidence::Fields),
            ),
        ]);
    }

    #[test]
    fn the_layout_decides_next_then_the_registry_then_terraform() {
        let plain = r#"{"schema_version": 0, "attributes": {}, "private": "cA=="}"#;
        let indented = state_text(TERRAFORM, plain);
        assert_eq!(judged(&indented), (Flavour::Terraform, Evidence::Nothing));
        assert_eq!(
            judged(&format!("{indented}\n")),
            (Flavour::OpenTofu, Evidence::Layout)
        );
        let compact: String = indented
            .lines()
            .map(str::trim_start)
            .collect::<Vec<_>>()
            .join("");
        assert_eq!(judged(&compact), (Flavour::OpenTofu, Evidence::Layout));
        assert_eq!(
            judged(&state_text(OPENTOFU, plain)),
            (Flavour::OpenTofu, Evidence::ProviderHost)
        );
        assert_eq!(
            judged(&state_text("Registry.OpenTofu.org", plain)),
            (Flavour::OpenTofu, Evidence::ProviderHost)
        );
    }

    #[test]
    fn each_instance_field_is_found_by_its_name_in_any_case_and_ranked_in_both_orders() {
        for (rank, name) in OPENTOFU_INSTANCE_ORDER.iter().enumerate() {
            let field = InstanceField::of(name).unwrap();
            assert_eq!(
                (
                    usize::from(field.0),
                    OPENTOFU_INSTANCE_ORDER[usize::from(field.0)]
                ),
                (rank, *name)
            );
            assert_eq!(InstanceField::of(&name.to_ascii_uppercase()), Some(field));
            assert_eq!(TERRAFORM_INSTANCE_ORDER[field.terraform_rank()], *name);
        }
        for unknown in ["", "index", "attributes ", "Attributes_Flat_", "unknown"] {
            assert_eq!(InstanceField::of(unknown), None, "{unknown:?}");
        }
    }

    #[test]
    fn key_order_tells_only_when_one_order_holds() {
        let writer = |keys: &[&str]| {
            let mut order = KeyOrder::default();
            for field in keys.iter().filter_map(|key| InstanceField::of(key)) {
                order.see(field);
            }
            order.writer()
        };
        assert_eq!(writer(&["schema_version", "attributes", "private"]), None);
        assert_eq!(writer(&["private", "schema_version", "identity"]), None);
        assert_eq!(
            writer(&[
                "status",
                "schema_version",
                "identity_schema_version",
                "create_before_destroy"
            ]),
            Some(Flavour::Terraform)
        );
        assert_eq!(
            writer(&["index_key", "provider", "schema_version"]),
            Some(Flavour::OpenTofu)
        );
        assert_eq!(
            writer(&["skip_destroy", "identity"]),
            Some(Flavour::OpenTofu)
        );
        // Keys neither writer knows say nothing.
        assert_eq!(writer(&["x_future", "schema_version", "zzz"]), None);
    }
}
