//! Reading a state: what the bytes are (`sniff` names what is not a state; here: a v4 state, a legacy
//! one, a backend cache), then one pass over the JSON into the borrowed model, with Go's reader
//! rules: keys match case-insensitively and the last duplicate wins.
//!
//! Attributes are validated but not decoded; that is what keeps a 250 MB state fast to list.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::json::keys::folds_to_field;
use crate::json::{Cursor, JsonErrorKind, Span};
use crate::state::address::{InstanceKey, Mode, ModulePath, ResourceAddr};
use crate::state::deposed_key::DeposedKey;
use crate::state::error::{StateError, shorten};
use crate::state::last_wins::last_of_each;
use crate::state::layout::{Flavour, InstanceField, KeyOrder, OrderLean, Style};
use crate::state::mapped::GiveBack;
use crate::state::model::{Inside, Instance, Member, Output, Resource, State};
use crate::state::notes::{Notes, NotesAt, Noting, Taking};

/// Values that thousands of resources repeat, parsed once: provider addresses (a state names a few
/// providers) and the last module path (resources of one module stand together); the buffer a
/// resource's instances are gathered in before they are copied into a vector of their exact size
/// (one allocation each, where growing a vector took several); the notes of chosen attributes,
/// when the parse takes them; and what gives back the pages its reader has passed, when asked.
#[derive(Default)]
pub(super) struct Shared<'a> {
    pub(super) notes: Notes,
    /// Each with the string literal it was read from, quotes and escapes included.
    providers: Vec<(Box<str>, Arc<ProviderConfig>)>,
    /// The module read last, with the string literal it was read from.
    last_module: Option<(String, ModulePath)>,
    instances: Vec<Instance<'a>>,
    /// An instance read since this was last cleared took its `attributes` from a member named
    /// otherwise (in another case).
    attributes_named_otherwise: bool,
    /// An instance read since this was last cleared has a member read as its `status`.
    status_members: bool,
    /// Values of members read since this was last emptied that a later member of the same name
    /// replaced (see `State::shadowed`).
    pub(super) shadowed: Vec<Span>,
    /// Gives back the pages of a mapped file this reader has passed, when the caller asked
    /// (`parse_giving_back`); `given` is how far it has.
    pub(super) give_back: Option<GiveBack<'a>>,
    given: usize,
}
use crate::json::line_index::BLOCK_BYTES;
use crate::json::utf8::{self, Checking};
use crate::state::order::{self, Duplicate};
use crate::state::parse_split::{self, Gathered};
use crate::state::provider::ProviderConfig;
use crate::state::sensitive;
use crate::state::sniff;

type Result<T> = std::result::Result<T, StateError>;

/// Pages are given back once a reader has passed this many bytes since it last gave some back: a
/// few calls to the kernel per thread and 100 MB.
const GIVE_BACK_EVERY: usize = 2 << 20;

impl<'a> Shared<'a> {
    /// Nothing shared yet, notes taken as `notes` says; for a reader that starts at `at`, giving
    /// back pages as `give_back` says.
    pub(super) fn taking(notes: Notes, give_back: Option<GiveBack<'a>>, at: usize) -> Self {
        Shared {
            notes,
            give_back,
            given: at,
            ..Shared::default()
        }
    }

    /// Gives back the pages `cursor` has passed, every few megabytes: those whose UTF-8 is checked
    /// (a page given back before its check would be mapped again for it).
    fn passed(&mut self, cursor: &mut Cursor<'_>) {
        if let Some(give_back) = self.give_back
            && cursor.position() >= self.given.saturating_add(GIVE_BACK_EVERY)
        {
            let to = cursor.position().min(cursor.checked_to());
            self.given = give_back.pages(self.given, to);
        }
    }

    /// Gives back all the pages of the part `cursor` has read, once it is done with it, the
    /// granules it shares with the parts beside it included.
    pub(super) fn passed_all(&mut self, cursor: &mut Cursor<'_>) {
        if let Some(give_back) = self.give_back {
            let to = cursor.position().min(cursor.checked_to());
            give_back.pages_around(self.given, to);
            self.given = self.given.max(to);
        }
    }
}

/// Parses a state from its bytes. Errors carry a line and column of `bytes`, or an address.
pub fn parse(bytes: &[u8]) -> Result<State<'_>> {
    parse_with(bytes, Notes::default(), None)
}

/// [`parse`], taking the notes `noting` asks for (see `notes`): the top-level members of every
/// instance's attributes it names, for a reader that asks for a few of them from every instance,
/// and the text's lines.
pub fn parse_noting<'a>(bytes: &'a [u8], noting: &Noting) -> Result<State<'a>> {
    parse_with(bytes, Notes::taking(noting), None)
}

/// [`parse`] of the bytes of a read-only mapping, giving back the pages it has passed as it goes
/// (see `StateBytes::parse_reading_once`), taking the notes `noting` asks for, if any.
pub(crate) fn parse_giving_back<'a>(
    bytes: &'a [u8],
    noting: Option<&Noting>,
    give_back: GiveBack<'a>,
) -> Result<State<'a>> {
    let notes = noting.map_or_else(Notes::default, Notes::taking);
    parse_with(bytes, notes, Some(give_back))
}

/// From this size a state's UTF-8 is checked as it is parsed, each block once the parse has read
/// past it and the bytes just ahead of each text the parse makes (in cache then), and its lines
/// are counted with the blocks when asked (`utf8::Checking`). A smaller state gains nothing (the
/// folder of 2,070 states scanned as fast with any size from 0 up), and its reader counts lines
/// after the parse if it needs them at all (a scan without findings does not): counting every
/// small state of a folder as it was checked made that scan 4% slower.
const CHECKED_AS_READ_FROM: usize = 4 << 20;

fn parse_with<'a>(
    bytes: &'a [u8],
    notes: Notes,
    give_back: Option<GiveBack<'a>>,
) -> Result<State<'a>> {
    sniff::bytes(bytes, true).map_err(|error| error.located_in(bytes))?;
    let cursor = match checked_in_blocks_of(bytes.len()) {
        Some(block) => Cursor::checking(Arc::new(Checking::in_blocks(
            bytes,
            notes.lines_asked,
            block,
        ))),
        None => Cursor::new(
            utf8::text(bytes).map_err(|offset| sniff::not_utf8(offset).located_in(bytes))?,
        ),
    };
    let state = parse_text(cursor, notes, give_back).map_err(|error| {
        // Bytes that are not UTF-8 are the first thing wrong with a file, wherever the parse
        // stopped (it checks a large state's blocks only as it reaches them). Only once reading
        // UTF-8 as a state failed: is it another known kind of JSON document?
        match utf8::text(bytes) {
            Err(offset) => sniff::not_utf8(offset).located_in(bytes),
            Ok(source) => sniff::document(source).unwrap_or(error).located_in(bytes),
        }
    })?;
    // An encrypted envelope that also carries a `version` reads as an empty state: never say so.
    if state
        .members
        .iter()
        .any(|member| folds_to_field(&member.key, "encryption_version"))
        && let Some(error) = sniff::document(state.source)
    {
        return Err(error);
    }
    Ok(state)
}

/// How many bytes a block of a state of `length` bytes checked as it is parsed holds; `None` to
/// check it first.
fn checked_in_blocks_of(length: usize) -> Option<usize> {
    #[cfg(test)]
    if let Some(block) = CHECKED_IN_BLOCKS.get() {
        return Some(block);
    }
    (length >= CHECKED_AS_READ_FROM).then_some(BLOCK_BYTES)
}

#[cfg(test)]
thread_local! {
    /// For tests: parse every state on this thread checking it as it is read, in blocks of this
    /// many bytes.
    pub(crate) static CHECKED_IN_BLOCKS: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// What the top level holds before version checks decide how to read it.
#[derive(Default)]
struct TopLevel<'a> {
    version: Option<(Span, Option<u64>)>,
    terraform_version: Option<Cow<'a, str>>,
    serial: Option<(u64, Span)>,
    lineage: Option<Cow<'a, str>>,
    outputs: Vec<Output<'a>>,
    resources: Gathered<'a>,
    /// The values of the `outputs` and `resources` members read last.
    outputs_value: Option<Span>,
    resources_value: Option<Span>,
    /// Values of top-level members a later one of the same name replaced.
    shadowed: Vec<Span>,
    check_results: Option<Span>,
    backend: bool,
    modules: bool,
    members: Vec<Member<'a>>,
    shared: Shared<'a>,
    /// A problem inside `resources` or `outputs`, reported only if the version turns out to be 4: a
    /// version error explains more than a structural one.
    deferred: Option<StateError>,
}

fn parse_text<'a>(
    mut cursor: Cursor<'a>,
    notes: Notes,
    give_back: Option<GiveBack<'a>>,
) -> Result<State<'a>> {
    if cursor.peek() != Some(b'{') {
        return Err(sniff::not_an_object(cursor.whole()?.0));
    }
    let mut top = TopLevel {
        shared: Shared::taking(notes, give_back, 0),
        ..TopLevel::default()
    };
    let span =
        cursor.object(|cursor, key, key_span| top_level_member(cursor, key, key_span, &mut top))?;
    cursor.finish()?;
    let (source, lines) = cursor.whole()?;
    top.shared.notes.lines = lines;
    // The text is UTF-8 throughout: the copies of noted values are too.
    top.shared.notes.seal();
    check_version(&top, source)?;
    if let Some(error) = top.deferred.take() {
        return Err(error);
    }
    let terraform_version = top.terraform_version;
    let mut state = State {
        source,
        version: 4,
        terraform_version,
        serial: top.serial.map_or(0, |(serial, _)| serial),
        serial_span: top.serial.map(|(_, span)| span),
        lineage: top.lineage.unwrap_or_default(),
        outputs: top.outputs,
        resources: top.resources.resources,
        order: Vec::new(),
        check_results: top.check_results,
        notes: top.shared.notes,
        members: top.members,
        // The resources were read from it when it is an array (`null` holds none).
        resources_array: top
            .resources_value
            .filter(|value| source.as_bytes().get(value.start) == Some(&b'[')),
        shadowed: {
            let mut shadowed = top.shadowed;
            shadowed.append(&mut top.resources.shadowed);
            shadowed
        },
        span,
        style: Style::detect(source, span, Flavour::Terraform),
        give_back: top.shared.give_back,
    };
    // Who wrote it, from what the parse counted of each resource, and its objects in Terraform's
    // order, from what it noted of each.
    state.style.flavour = top.resources.tally.flavour(&state.style).0;
    let order = order::sort_summarized(&state.resources, &top.resources.summaries);
    state.order = order.map_err(|Duplicate(object)| {
        let resource = &state.resources[object.resource as usize];
        let instance = &resource.instances[object.instance as usize];
        let address = instance.address(resource);
        match &instance.deposed {
            None => StateError::for_address(address, "two current objects for one instance (Terraform: \"Duplicate resource instance in state\")"),
            Some(key) => StateError::for_address(address, format!("deposed key {key} appears twice for one instance")),
        }
    })?;
    Ok(state)
}

/// The value from `start` to the cursor is the last of its member's name read so far (`last`):
/// the one before it, if any, is shadowed (Terraform reads only the last of a name, in any case).
fn read_last(last: &mut Option<Span>, start: usize, cursor: &Cursor<'_>, shadowed: &mut Vec<Span>) {
    if let Some(before) = last.replace(Span::new(start, cursor.position())) {
        shadowed.push(before);
    }
}

/// [`read_last`] for a value kept inside the object at `object_start`.
fn take_last(
    last: &mut Option<Inside>,
    value: Inside,
    object_start: usize,
    shared: &mut Shared<'_>,
) {
    if let Some(before) = last.replace(value) {
        shared.shadowed.push(before.within(object_start));
    }
}

fn top_level_member<'a>(
    cursor: &mut Cursor<'a>,
    key: Cow<'a, str>,
    key_span: Span,
    top: &mut TopLevel<'a>,
) -> Result<()> {
    cursor.skip_whitespace();
    let start = cursor.position();
    match canonical(&key, TOP_LEVEL_KEYS) {
        Some("version") => {
            let span = cursor.skip_value()?;
            top.version = Some((span, cursor.text(span)?.parse().ok()));
        }
        Some("terraform_version") => {
            top.terraform_version = optional_string(cursor, "terraform_version")?;
        }
        Some("serial") => {
            top.serial = Some((
                unsigned(cursor, "serial")?,
                Span::new(start, cursor.position()),
            ));
        }
        Some("lineage") => top.lineage = optional_string(cursor, "lineage")?,
        Some("outputs") => match outputs(cursor) {
            Ok(parsed) => {
                read_last(&mut top.outputs_value, start, cursor, &mut top.shadowed);
                top.outputs = parsed;
            }
            Err(error) => defer(cursor, start, error, &mut top.deferred)?,
        },
        Some("resources") => match parse_split::resources(cursor, &mut top.shared) {
            Ok(parsed) => {
                read_last(&mut top.resources_value, start, cursor, &mut top.shadowed);
                top.resources = parsed;
            }
            Err(error) => defer(cursor, start, error, &mut top.deferred)?,
        },
        Some("check_results") => top.check_results = Some(cursor.skip_value()?),
        Some("backend")
            // The backend cache's `backend` holds the backend's `type` and `config`; a real v3 state
            // may carry a `backend` too, with only a `hash`.
            if cursor.peek() == Some(b'{') => {
                cursor.object(|cursor, key, _| {
                    top.backend |= folds_to_field(&key, "type");
                    cursor.skip_value().map(|_| ())
                })?;
            }
        Some("modules") => {
            top.modules = true;
            cursor.skip_value()?;
        }
        _ => {
            cursor.skip_value()?;
        }
    }
    top.members.push(Member {
        key,
        key_span,
        value: Span::new(start, cursor.position()),
    });
    Ok(())
}

/// Keeps a structural error for later and skips the rest of the value, so a JSON syntax error further
/// on (which Go would report first) still wins.
fn defer(
    cursor: &mut Cursor<'_>,
    start: usize,
    error: StateError,
    deferred: &mut Option<StateError>,
) -> Result<()> {
    cursor.seek(start);
    cursor.skip_value()?;
    deferred.get_or_insert(error);
    Ok(())
}

fn check_version(top: &TopLevel<'_>, source: &str) -> Result<()> {
    let Some((span, number)) = top.version else {
        return Err(StateError::new(
            "this JSON has no `version` field, so it is not a Terraform state",
        )
        .with_hint("a state starts with `\"version\": 4`; is this a plan or another JSON file?"));
    };
    let Some(version) = number else {
        return Err(StateError::at(
            span.start,
            format!(
                "`version` must be an integer, found `{}`",
                shorten(span.of(source)).escape_debug()
            ),
        ));
    };
    match version {
        4 => Ok(()),
        3 if top.backend => Err(StateError::new("this is Terraform's backend cache (.terraform/terraform.tfstate), not a state")
            .with_hint("the state lives where the backend points; for the local backend it is `terraform.tfstate` in the working directory")),
        // Format 3 is upgraded by `state::legacy`, which reads it again; 1 and 2 are refused there.
        3 => Err(crate::state::legacy::upgradable(span.start)),
        1 | 2 => Err(crate::state::legacy::too_old(version, span.start)),
        0 => Err(StateError::at(span.start, "unsupported state version 0: no Terraform wrote a JSON state with version 0")),
        _ => Err(StateError::at(span.start, format!("unsupported state version {version}: statectl reads version 4 (Terraform 0.12 and later, OpenTofu)"))
            .with_hint("a newer state format needs a newer statectl")),
    }
}

const TOP_LEVEL_KEYS: &[&str] = &[
    "version",
    "terraform_version",
    "serial",
    "lineage",
    "outputs",
    "resources",
    "check_results",
    "backend",
    "modules",
];
const OUTPUT_KEYS: &[&str] = &["value", "type", "sensitive"];
const RESOURCE_KEYS: &[&str] = &[
    "module",
    "mode",
    "type",
    "name",
    "each",
    "provider",
    "instances",
];

/// The field a key names, as Go's reader matches it: exactly, or else folding case as it folds
/// it ([`folds_to_field`]).
pub fn canonical(key: &str, names: &[&'static str]) -> Option<&'static str> {
    names
        .iter()
        .find(|name| **name == key)
        .or_else(|| names.iter().find(|name| folds_to_field(key, name)))
        .copied()
}

fn outputs<'a>(cursor: &mut Cursor<'a>) -> Result<Vec<Output<'a>>> {
    let mut outputs = Vec::new();
    if cursor.null() {
        return Ok(outputs);
    }
    cursor.object(|cursor, name, _| {
        let mut output = Output {
            name,
            value: None,
            value_type: None,
            sensitive: false,
            span: Span::default(),
        };
        output.span = cursor.object(|cursor, key, _| {
            match canonical(&key, OUTPUT_KEYS) {
                Some("value") => output.value = Some(cursor.skip_value()?),
                Some("type") => output.value_type = Some(cursor.skip_value()?),
                Some("sensitive") => output.sensitive = boolean(cursor, "sensitive")?,
                _ => {
                    cursor.skip_value()?;
                }
            }
            Ok::<_, StateError>(())
        })?;
        outputs.push(output);
        Ok::<_, StateError>(())
    })?;
    // The last of a repeated name, as Go reads it.
    Ok(last_of_each(outputs, |output| output.name.as_ref()))
}

pub(super) fn resource<'a>(
    cursor: &mut Cursor<'a>,
    shared: &mut Shared<'a>,
) -> Result<Resource<'a>> {
    let mut module: Option<(Span, usize)> = None;
    let mut mode: Option<(Cow<'a, str>, usize)> = None;
    let mut type_name: Option<Cow<'a, str>> = None;
    let mut name: Option<Cow<'a, str>> = None;
    let mut provider = None;
    let mut instances = Vec::new();
    let mut instances_array = None;
    let mut instances_in_order = true;
    let mut instances_named_exactly = false;
    let mut attributes_named_exactly = true;
    let mut status_members = false;
    let mut instances_value = None;
    let mut key_order = OrderLean::default();
    let start = cursor.position();
    let span = cursor.object(|cursor, key, _| {
        cursor.skip_whitespace();
        let value_start = cursor.position();
        match canonical(&key, RESOURCE_KEYS) {
            Some("module") => {
                module = optional_string_place(cursor, "module")?.map(|span| (span, value_start));
            }
            Some("mode") => mode = optional_string(cursor, "mode")?.map(|text| (text, value_start)),
            Some("type") => type_name = optional_string(cursor, "type")?,
            Some("name") => name = optional_string(cursor, "name")?,
            Some("provider") => provider = optional_provider(cursor, shared)?,
            Some("instances") => {
                shared.attributes_named_otherwise = false;
                shared.status_members = false;
                (instances, instances_array, instances_in_order, key_order) =
                    resource_instances(cursor, shared)?;
                read_last(
                    &mut instances_value,
                    value_start,
                    cursor,
                    &mut shared.shadowed,
                );
                instances_named_exactly = key == "instances";
                attributes_named_exactly = !shared.attributes_named_otherwise;
                status_members = shared.status_members;
            }
            _ => {
                cursor.skip_value()?;
            }
        }
        Ok::<_, StateError>(())
    })?;
    let mode = match mode {
        Some((text, _)) if text == "managed" => Mode::Managed,
        Some((text, _)) if text == "data" => Mode::Data,
        Some((text, at)) => {
            return Err(StateError::at(
                at,
                format!(
                    "invalid resource `mode` {:?}: it must be \"managed\" or \"data\"",
                    shorten(&text)
                ),
            ));
        }
        None => return Err(StateError::at(start, "a resource has no `mode`")),
    };
    let module = match module {
        Some((span, at)) => Some((cursor.text(span)?, at)),
        None => None,
    };
    let module = module_path(module, shared)?;
    let type_name = type_name
        .filter(|text| !text.is_empty())
        .ok_or_else(|| StateError::at(start, "a resource has no `type`"))?;
    let name = name
        .filter(|text| !text.is_empty())
        .ok_or_else(|| StateError::at(start, "a resource has no `name`"))?;
    let address = ResourceAddr {
        module,
        mode,
        type_name: type_name.into_owned(),
        name: name.into_owned(),
    };
    Ok(Resource {
        address,
        provider,
        instances,
        instances_array: instances_array.and_then(|array| Inside::of(array, span.start)),
        span,
        instances_in_order,
        key_order,
        instances_named_exactly,
        attributes_named_exactly,
        status_members,
    })
}

/// The module path a resource's `module` (its literal as written, quotes included, and where it
/// is) names: the one parsed last when the literal is the same (resources of one module stand
/// together), the root module when there is none. Known by the literal, as providers are: a
/// module called with `for_each` is written with escaped quotes (`module.app[\"a\"]`), and
/// decoding it for every resource made a string each time.
fn module_path(module: Option<(&str, usize)>, shared: &mut Shared<'_>) -> Result<ModulePath> {
    match module {
        Some((literal, _))
            if shared
                .last_module
                .as_ref()
                .is_some_and(|(last, _)| last == literal) =>
        {
            Ok(shared
                .last_module
                .as_ref()
                .map(|(_, path)| path.clone())
                .unwrap_or_default())
        }
        Some((literal, at)) => {
            let text = Cursor::new(literal).string()?.0;
            let path = text.parse::<ModulePath>().map_err(|error| {
                StateError::at(
                    at,
                    format!("invalid module address {:?}: {error}", shorten(&text)),
                )
            })?;
            shared.last_module = Some((literal.to_owned(), path.clone()));
            Ok(path)
        }
        None => Ok(ModulePath::default()),
    }
}

/// A resource's `instances` (an array or `null`), the array's span, whether they are in order (see
/// `Resource::instances_in_order`) and which writer's key order they follow.
fn resource_instances<'a>(
    cursor: &mut Cursor<'a>,
    shared: &mut Shared<'a>,
) -> Result<(Vec<Instance<'a>>, Option<Span>, bool, OrderLean)> {
    // Most resources hold one instance, and a vector grows to four at its first push: three unused
    // instance slots per resource were a third of a large state's model. Gathered in the shared
    // buffer, then copied into a vector of the exact size.
    let mut gathered = std::mem::take(&mut shared.instances);
    gathered.clear();
    let mut key_order = OrderLean::default();
    let read = if cursor.null() {
        Ok(None)
    } else {
        cursor
            .array(|cursor| {
                gathered.push(instance(cursor, shared, &mut key_order)?);
                shared.passed(cursor);
                Ok::<_, StateError>(())
            })
            .map(Some)
    };
    let in_order = order::in_order(&gathered);
    let instances = exact_copy(&mut gathered);
    shared.instances = gathered;
    let array = read?;
    Ok((instances, array, in_order, key_order))
}

/// Parses one instance object on its own, as [`parse`] parses each inside `instances`: for a write
/// to check an object it rendered without parsing the whole new state again.
pub fn parse_instance(text: &str) -> Result<Instance<'_>> {
    let mut cursor = Cursor::new(text);
    let instance = instance(
        &mut cursor,
        &mut Shared::default(),
        &mut OrderLean::default(),
    )?;
    cursor.finish()?;
    Ok(instance)
}

/// Reads an instance object, counting which writer's key order it follows into `lean`.
fn instance<'a>(
    cursor: &mut Cursor<'a>,
    shared: &mut Shared<'a>,
    lean: &mut OrderLean,
) -> Result<Instance<'a>> {
    let mut instance = Instance {
        index_key: None,
        tainted: false,
        deposed: None,
        provider: None,
        schema_version: 0,
        attributes: None,
        attributes_flat: None,
        sensitive_attributes: None,
        private: None,
        dependencies: None,
        create_before_destroy: false,
        skip_destroy: false,
        identity: None,
        identity_schema_version: None,
        span: Span::default(),
        notes: NotesAt::NONE,
        text: PhantomData,
    };
    let mut key_order = KeyOrder::default();
    cursor.skip_whitespace();
    let object_start = cursor.position();
    // A value's place inside the object (see `Inside`); no value of a state can be out of reach.
    let inside = |span: Span| {
        Inside::of(span, object_start).ok_or_else(|| {
            StateError::at(
                span.start,
                "an instance object may not be larger than 4 GiB",
            )
        })
    };
    let span = cursor.object(|cursor, key, _| {
        cursor.skip_whitespace();
        let start = cursor.position();
        let field = InstanceField::of(&key);
        if let Some(field) = field {
            key_order.see(field);
        }
        match field {
            Some(InstanceField::INDEX_KEY) => instance.index_key = index_key(cursor)?,
            Some(InstanceField::STATUS) => {
                instance.tainted = status(cursor)?;
                shared.status_members = true;
            }
            Some(InstanceField::DEPOSED) => instance.deposed = deposed_key(cursor)?,
            Some(InstanceField::PROVIDER) => {
                instance.provider = optional_provider(cursor, shared)?;
            }
            Some(InstanceField::SCHEMA_VERSION) => {
                instance.schema_version = unsigned(cursor, "schema_version")?;
            }
            Some(InstanceField::ATTRIBUTES) => {
                let (span, notes) = noted_attributes(cursor, object_start, &mut shared.notes)?;
                let attributes = inside(span)?;
                take_last(&mut instance.attributes, attributes, object_start, shared);
                instance.notes = notes;
                shared.attributes_named_otherwise |= key != "attributes";
            }
            Some(InstanceField::ATTRIBUTES_FLAT) => {
                let flat = inside(string_map(cursor)?)?;
                take_last(&mut instance.attributes_flat, flat, object_start, shared);
            }
            Some(InstanceField::SENSITIVE_ATTRIBUTES) => {
                let span = cursor.skip_value()?;
                sensitive::check_paths(cursor.text(span)?)
                    .map_err(|problem| StateError::at(start, problem.to_string()))?;
                instance.sensitive_attributes = Some(inside(span)?);
            }
            Some(InstanceField::PRIVATE) => {
                instance.private = optional_string_place(cursor, "private")?
                    .map(inside)
                    .transpose()?;
            }
            Some(InstanceField::DEPENDENCIES) => {
                instance.dependencies = string_list(cursor, "dependencies")?
                    .map(inside)
                    .transpose()?;
            }
            Some(InstanceField::CREATE_BEFORE_DESTROY) => {
                instance.create_before_destroy = boolean(cursor, "create_before_destroy")?;
            }
            Some(InstanceField::SKIP_DESTROY) => {
                instance.skip_destroy = boolean(cursor, "skip_destroy")?;
            }
            Some(InstanceField::IDENTITY) => {
                instance.identity = Some(inside(object_or_null(cursor, "identity")?)?);
            }
            Some(InstanceField::IDENTITY_SCHEMA_VERSION) => {
                unsigned(cursor, "identity_schema_version")?;
                instance.identity_schema_version =
                    Some(inside(Span::new(start, cursor.position()))?);
            }
            _ => {
                cursor.skip_value()?;
            }
        }
        Ok::<_, StateError>(())
    })?;
    instance.span = span;
    lean.add(key_order.writer());
    Ok(instance)
}

/// The place of a string value's literal, quotes included; `None` for `null`. Its escapes are
/// checked, not decoded: a provider's address is written with escaped quotes, and decoding it
/// made a string (grown twice) for every resource, only to be dropped.
fn optional_string_place(cursor: &mut Cursor<'_>, field: &str) -> Result<Option<Span>> {
    match cursor.peek() {
        Some(b'"') => Ok(Some(cursor.skip_string()?)),
        _ if cursor.null() => Ok(None),
        _ => Err(wrong_kind(cursor, format!("`{field}` must be a string"))),
    }
}

fn optional_string<'a>(cursor: &mut Cursor<'a>, field: &str) -> Result<Option<Cow<'a, str>>> {
    match cursor.peek() {
        Some(b'"') => Ok(Some(cursor.string()?.0)),
        _ if cursor.null() => Ok(None),
        _ => Err(wrong_kind(cursor, format!("`{field}` must be a string"))),
    }
}

fn optional_provider(
    cursor: &mut Cursor<'_>,
    shared: &mut Shared<'_>,
) -> Result<Option<Arc<ProviderConfig>>> {
    cursor.skip_whitespace();
    let at = cursor.position();
    let Some(span) = optional_string_place(cursor, "provider")? else {
        return Ok(None);
    };
    // Known by the literal as written: Terraform writes the address's quotes escaped
    // (`provider[\"registry...\"]`), and decoding it for every resource made a string each time.
    let literal = cursor.text(span)?;
    if let Some((_, known)) = shared
        .providers
        .iter()
        .find(|(known, _)| **known == *literal)
    {
        return Ok(Some(Arc::clone(known)));
    }
    let text = Cursor::new(literal).string()?.0;
    // Another spelling of a provider already read is the same provider.
    let spelled_otherwise = shared
        .providers
        .iter()
        .find(|(_, known)| known.text == text)
        .map(|(_, known)| Arc::clone(known));
    let parsed = match spelled_otherwise {
        Some(known) => known,
        None => Arc::new(
            ProviderConfig::parse(&text).map_err(|problem| invalid_provider(at, &text, problem))?,
        ),
    };
    // A linear search is cheapest for the few providers a state names; past a few hundred distinct
    // ones (provider for_each at scale) stop caching rather than search ever longer lists.
    if shared.providers.len() < 256 {
        shared.providers.push((literal.into(), Arc::clone(&parsed)));
    }
    Ok(Some(parsed))
}

fn invalid_provider(at: usize, text: &str, problem: impl std::fmt::Display) -> StateError {
    StateError::at(at, format!("invalid provider address {:?}: {problem}", shorten(text)))
        .with_hint("Terraform would silently drop this resource on its next write; fix the address, e.g. `provider[\"registry.terraform.io/hashicorp/null\"]`")
}

fn unsigned(cursor: &mut Cursor<'_>, field: &str) -> Result<u64> {
    if cursor.null() {
        return Ok(0);
    }
    if !matches!(cursor.peek(), Some(b'-' | b'0'..=b'9')) {
        return Err(wrong_kind(
            cursor,
            format!("`{field}` must be a non-negative integer"),
        ));
    }
    let span = cursor.number()?;
    let text = cursor.text(span)?;
    text.parse().map_err(|_| {
        StateError::at(
            span.start,
            format!(
                "`{field}` must be a non-negative integer, found {}",
                shorten(text)
            ),
        )
    })
}

/// A value of the wrong kind, or none at all because the text ends here: a file cut after a key's
/// colon is truncated, and saying what the key must hold would send the reader the wrong way.
fn wrong_kind(cursor: &mut Cursor<'_>, message: impl Into<String>) -> StateError {
    cursor.skip_whitespace();
    let at = cursor.position();
    // Only on this error path: does the value run into the end of the text (`n`, `tr`, `"ab`)?
    let mut probe = cursor.fork(at, 0);
    if let Err(error) = probe.skip_value()
        && matches!(error.kind, JsonErrorKind::UnexpectedEnd { .. })
    {
        return error.into();
    }
    StateError::at(at, message)
}

fn boolean(cursor: &mut Cursor<'_>, field: &str) -> Result<bool> {
    let span = cursor.skip_value()?;
    match cursor.text(span)? {
        "true" => Ok(true),
        "false" | "null" => Ok(false),
        _ => Err(StateError::at(
            span.start,
            format!("`{field}` must be true or false"),
        )),
    }
}

/// An instance's `attributes` (an object or `null`), noting the members `notes` asks for on the way
/// when it asks (the object starts at `object_start`).
fn noted_attributes(
    cursor: &mut Cursor<'_>,
    object_start: usize,
    notes: &mut Notes,
) -> Result<(Span, NotesAt)> {
    let Notes {
        filter,
        members: notes,
        copies,
        copies_asked,
        ..
    } = notes;
    let Some(filter) = filter.as_deref() else {
        return Ok((object_or_null(cursor, "attributes")?, NotesAt::NONE));
    };
    if cursor.peek() != Some(b'{') {
        return Ok((object_or_null(cursor, "attributes")?, NotesAt::NONE));
    }
    let (mut taking, header) = Taking::start(filter, notes, copies, *copies_asked, object_start);
    match cursor.skip_value_noting(&mut taking) {
        Ok((span, complete)) => Ok((span, taking.finish(header, complete))),
        Err(error) => {
            taking.finish(header, false);
            Err(error.into())
        }
    }
}

fn object_or_null(cursor: &mut Cursor<'_>, field: &str) -> Result<Span> {
    match cursor.peek() {
        Some(b'{' | b'n') => Ok(cursor.skip_value()?),
        _ => Err(wrong_kind(
            cursor,
            format!("`{field}` must be a JSON object"),
        )),
    }
}

fn string_map(cursor: &mut Cursor<'_>) -> Result<Span> {
    cursor.skip_whitespace();
    let start = cursor.position();
    if cursor.null() {
        return Ok(Span::new(start, cursor.position()));
    }
    cursor.object(|cursor, _, _| match cursor.peek() {
        Some(b'"') => cursor.skip_string().map(|_| ()).map_err(StateError::from),
        _ => Err(wrong_kind(
            cursor,
            "`attributes_flat` values must be strings",
        )),
    })
}

/// The place of an array of strings, checked; `None` for `null`.
fn string_list(cursor: &mut Cursor<'_>, field: &str) -> Result<Option<Span>> {
    if cursor.null() {
        return Ok(None);
    }
    if cursor.peek() != Some(b'[') {
        return Err(wrong_kind(
            cursor,
            format!("`{field}` must be an array of strings"),
        ));
    }
    cursor
        .array(|cursor| {
            if cursor.peek() != Some(b'"') {
                return Err(wrong_kind(
                    cursor,
                    format!("`{field}` must be an array of strings"),
                ));
            }
            // Checked, not decoded: only the list's place is kept (an address of a module called
            // with `for_each` is written with escaped quotes, and decoding it made a string).
            cursor.skip_string()?;
            Ok(())
        })
        .map(Some)
}

/// Moves what a buffer gathered into a vector of its exact size, leaving the buffer empty with its
/// capacity, for the next use.
fn exact_copy<T>(gathered: &mut Vec<T>) -> Vec<T> {
    let mut exact = Vec::with_capacity(gathered.len());
    exact.append(gathered);
    exact
}

fn index_key(cursor: &mut Cursor<'_>) -> Result<Option<InstanceKey>> {
    match cursor.peek() {
        Some(b'"') => Ok(Some(InstanceKey::Str(cursor.string()?.0.into_owned()))),
        Some(b'-' | b'0'..=b'9') => {
            let span = cursor.number()?;
            let text = cursor.text(span)?;
            text.parse()
                .map(|number| Some(InstanceKey::Int(number)))
                .map_err(|_| {
                    StateError::at(
                        span.start,
                        format!("`index_key` {} is not an integer", shorten(text)),
                    )
                })
        }
        _ if cursor.null() => Ok(None),
        _ => Err(wrong_kind(
            cursor,
            "`index_key` must be an integer or a string",
        )),
    }
}

fn status(cursor: &mut Cursor<'_>) -> Result<bool> {
    cursor.skip_whitespace();
    let at = cursor.position();
    match optional_string(cursor, "status")?.as_deref() {
        None | Some("") => Ok(false),
        Some("tainted") => Ok(true),
        Some(other) => Err(StateError::at(
            at,
            format!(
                "invalid instance `status` {:?}: the only status a state holds is \"tainted\"",
                shorten(other)
            ),
        )),
    }
}

fn deposed_key(cursor: &mut Cursor<'_>) -> Result<Option<DeposedKey>> {
    cursor.skip_whitespace();
    let at = cursor.position();
    match optional_string(cursor, "deposed")? {
        None => Ok(None),
        Some(key) if key.is_empty() => Ok(None),
        Some(key) if let Some(key) = DeposedKey::parse(&key) => Ok(Some(key)),
        Some(key) => Err(StateError::at(
            at,
            format!(
                "invalid `deposed` key {:?}: it must be 8 hexadecimal digits",
                shorten(&key)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_spelled_two_ways_is_one_provider() {
        let text = r#"{"version": 4, "serial": 1, "lineage": "l", "resources": [
            {"mode": "managed", "type": "t", "name": "a", "provider": "provider[\"registry.terraform.io/hashicorp/null\"]", "instances": []},
            {"mode": "managed", "type": "t", "name": "b", "provider": "provider[\u0022registry.terraform.io/hashicorp/null\u0022]", "instances": []},
            {"mode": "managed", "type": "t", "name": "c", "provider": "provider[\"registry.terraform.io/hashicorp/null\"]", "instances": []},
            {"mode": "managed", "type": "t", "name": "d", "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]", "instances": []}
        ]}"#;
        let state = parse(text.as_bytes()).unwrap();
        let providers: Vec<_> = state
            .resources
            .iter()
            .map(|resource| resource.provider.clone().unwrap())
            .collect();
        assert!(Arc::ptr_eq(&providers[0], &providers[1]));
        assert!(Arc::ptr_eq(&providers[0], &providers[2]));
        assert!(!Arc::ptr_eq(&providers[0], &providers[3]));
        assert_eq!(
            &*providers[1].text,
            "provider[\"registry.terraform.io/hashicorp/null\"]"
        );
        assert_eq!(
            &*providers[3].text,
            "provider[\"registry.terraform.io/hashicorp/aws\"]"
        );
    }

    #[test]
    fn modules_are_known_by_their_literal_and_read_decoded() {
        // The same module written two ways, another between them, a module after the root, one
        // with an escape Terraform never writes, and one that is not a module address.
        let text = r#"{"version": 4, "serial": 1, "lineage": "l", "resources": [
            {"module": "module.app[\"a\"]", "mode": "managed", "type": "t", "name": "a", "instances": []},
            {"module": "module.app[\u0022a\u0022]", "mode": "managed", "type": "t", "name": "b", "instances": []},
            {"module": "module.app[\"b\"]", "mode": "managed", "type": "t", "name": "c", "instances": []},
            {"module": "module.app[\"a\"]", "mode": "managed", "type": "t", "name": "d", "instances": []},
            {"mode": "managed", "type": "t", "name": "e", "instances": []},
            {"module": "module.app[\"a\"]", "mode": "managed", "type": "t", "name": "f", "instances": []},
            {"module": "module.tab[\"x\ty\"]", "mode": "managed", "type": "t", "name": "g", "instances": []}
        ]}"#;
        let state = parse(text.as_bytes()).unwrap();
        let addresses: Vec<String> = state
            .resources
            .iter()
            .map(|resource| resource.address.to_string())
            .collect();
        assert_eq!(
            addresses,
            [
                "module.app[\"a\"].t.a",
                "module.app[\"a\"].t.b",
                "module.app[\"b\"].t.c",
                "module.app[\"a\"].t.d",
                "t.e",
                "module.app[\"a\"].t.f",
                "module.tab[\"x\\ty\"].t.g",
            ]
        );
        let error = parse(
            br#"{"version": 4, "serial": 1, "lineage": "l", "resources": [
            {"module": "module.app", "mode": "managed", "type": "t", "name": "a", "instances": []},
            {"module": "module.app[\"a", "mode": "managed", "type": "t", "name": "b", "instances": []}
        ]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("invalid module address \"module.app[\\\"a\""),
            "{error}"
        );
    }

    #[test]
    fn strings_kept_as_places_are_checked_as_strings_read_are() {
        // Each place the parse checks without decoding, with an escape JSON has not, a `\u` short
        // of four digits, a raw control character and an unclosed string: refused, as the cursor's
        // `string` refuses them.
        let state = |module: &str, provider: &str, private: &str, dependency: &str| {
            format!(
                r#"{{"version": 4, "serial": 1, "lineage": "l", "resources": [{{"module": "{module}", "mode": "managed", "type": "t", "name": "n", "provider": "{provider}", "instances": [{{"attributes": {{}}, "private": "{private}", "dependencies": ["{dependency}"]}}]}}]}}"#
            )
        };
        let good = [
            "module.m",
            "provider[\\\"registry.terraform.io/hashicorp/null\\\"]",
            "YWJj",
            "a.b",
        ];
        parse(state(good[0], good[1], good[2], good[3]).as_bytes()).unwrap();
        for bad in ["a\\q", "a\\u12", "a\tb", "a\\"] {
            for place in 0..4 {
                let mut values = good;
                values[place] = bad;
                let text = state(values[0], values[1], values[2], values[3]);
                let text = if bad == "a\\" {
                    // An unclosed string: the text ends inside it.
                    text[..text.find(bad).unwrap() + bad.len()].to_owned()
                } else {
                    text
                };
                assert!(
                    parse(text.as_bytes()).is_err(),
                    "{bad:?} in place {place} read"
                );
            }
        }
    }

    fn outputs_of(members: &str) -> Vec<(String, String)> {
        let text =
            format!(r#"{{"version": 4, "serial": 1, "lineage": "l", "outputs": {{{members}}}}}"#);
        let state = parse(text.as_bytes()).unwrap();
        state
            .outputs
            .iter()
            .map(|output| {
                let value = output.value.map(|span| span.of(state.source).to_owned());
                (output.name.to_string(), value.unwrap_or_default())
            })
            .collect()
    }

    #[test]
    fn a_repeated_output_is_its_last_in_the_place_of_its_last() {
        let read = outputs_of(
            r#""a": {"value": 1, "type": "number"}, "b": {"value": 2, "type": "number"},
            "a": {"value": 3, "type": "number"}, "c": {"value": 4, "type": "number"},
            "b": {"value": 5, "type": "number"}"#,
        );
        let expected = [("a", "3"), ("c", "4"), ("b", "5")];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|&(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        assert_eq!(read, expected);
        // Many names, each twice: one look each (the earlier way looked at every output read so
        // far for each one, quadratic in their number).
        let members: Vec<String> = (0..2)
            .flat_map(|round| {
                (0..30_000).map(move |index| format!(r#""o{index}": {{"value": {round}}}"#))
            })
            .collect();
        let read = outputs_of(&members.join(","));
        assert_eq!(read.len(), 30_000);
        assert!(
            read.iter()
                .enumerate()
                .all(|(index, (name, value))| { *name == format!("o{index}") && value == "1" })
        );
    }
}
