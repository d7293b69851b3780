//! Terraform resource addresses as `statectl` reads, prints, sorts and
//! matches them: module paths (`module.a["k"].module.b[0]`), resources
//! (`aws_x.y`, `data.aws_x.y`), resource instances (`aws_x.y["k"]`), state
//! objects (an instance plus an optional deposed key) and the targets a user
//! may name on the command line. Parsing accepts what Terraform's
//! `addrs.ParseTargetStr` accepts (HCL traversal syntax, including its
//! whitespace, comments and quoted-string escapes), `Display` prints exactly
//! what Terraform prints, and `Ord` reproduces the order of
//! `terraform state list`. The behaviour was checked against Terraform's
//! `internal/addrs` and `internal/command/state_list.go`/`state_meta.go` and
//! HCL's `hclsyntax` scanner; no code was taken from them.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::str::FromStr;

/// The key that picks one instance out of a `count` (`Int`) or `for_each`
/// (`Str`) block.
///
/// The derived order is Terraform's `InstanceKeyLess`: integers before
/// strings, integers numerically, strings byte-wise (Go's `<` on strings).
/// Where a key may be absent, `Option<InstanceKey>` puts `None` first, which is
/// also what Terraform does with `NoKey`.
///
/// Negative integers can be held and printed but never parsed: HCL has no
/// negative number literals in traversals.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    Int(i64),
    Str(String),
}

impl fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::Str(s) => {
                f.write_char('[')?;
                write_hcl_quoted(f, s)?;
                f.write_char(']')
            }
        }
    }
}

/// Writes `s` as an HCL quoted string the way Terraform's `toHCLQuotedString`
/// does, so that our output is byte-identical to `terraform state list` and
/// still parses back as a literal (no accidental template sequences).
fn write_hcl_quoted(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for (i, c) in s.char_indices() {
        match c {
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '$' | '%' => {
                f.write_char(c)?;
                // Only an introducer directly before `{` would start a
                // template sequence, so only that one is doubled.
                if s[i + 1..].starts_with('{') {
                    f.write_char(c)?;
                }
            }
            c if !is_go_printable(c) => {
                let n = u32::from(c);
                if n < 0x10000 {
                    write!(f, "\\u{n:04x}")?;
                } else {
                    write!(f, "\\U{n:08x}")?;
                }
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// One `module.NAME` or `module.NAME[KEY]` step of a module path.
///
/// The derived order (name, then key with no key first) is the per-step
/// comparison in Terraform's `ModuleInstance.Less`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleStep {
    pub name: String,
    pub key: Option<InstanceKey>,
}

impl fmt::Display for ModuleStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "module.{}", self.name)?;
        match &self.key {
            Some(key) => write!(f, "{key}"),
            None => Ok(()),
        }
    }
}

/// A module instance path; the root module is the empty path and prints as
/// the empty string, like the state file's `module` field for root resources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ModulePath(pub Vec<ModuleStep>);

impl ModulePath {
    pub fn root() -> Self {
        ModulePath(Vec::new())
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Parses a module path as it appears in a state file's `module` field or
    /// on the command line. The empty string is the root module because
    /// Terraform's state reader only parses the field when it is non-empty;
    /// anything else goes through the same syntax as every other address, so
    /// e.g. a string of blanks is rejected just as Terraform rejects it.
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        if s.is_empty() {
            return Ok(ModulePath::root());
        }
        let parsed = parse_traversal(s, false)?;
        let (path, used) = module_prefix(&parsed.steps)?;
        match parsed.steps.get(used) {
            None => Ok(path),
            Some(step) if used == 0 => Err(AddressError::new(
                format!(
                    "a module path must start with \"module.\", found {}",
                    step.describe()
                ),
                step.at,
            )),
            Some(step) => Err(AddressError::new(
                format!("unexpected {} after the module path", step.describe()),
                step.at,
            )),
        }
    }

    /// Terraform's `ModuleInstance.IsAncestor`: a strictly shorter path whose
    /// steps name the same modules, where a step without a key stands for
    /// every instance of that module call.
    pub fn is_ancestor_of(&self, other: &ModulePath) -> bool {
        self.0.len() < other.0.len()
            && self.0.iter().zip(&other.0).all(|(ours, theirs)| {
                ours.name == theirs.name && (ours.key.is_none() || ours.key == theirs.key)
            })
    }

    /// Terraform's `ModuleInstance.TargetContains` for another module
    /// instance. Unlike `is_ancestor_of`, only the *last* step of `self` may
    /// leave its key out to cover every instance; earlier steps must match
    /// exactly. `state list` combines both, which is why `module.a.module.b`
    /// lists `module.a[0].module.b.module.c` but not `module.a[0].module.b`.
    fn target_contains(&self, other: &ModulePath) -> bool {
        if other.0.len() < self.0.len() {
            return false;
        }
        for (i, (ours, theirs)) in self.0.iter().zip(&other.0).enumerate() {
            if ours.name != theirs.name {
                return false;
            }
            if i + 1 == self.0.len() && ours.key.is_none() {
                return true;
            }
            if ours.key != theirs.key {
                return false;
            }
        }
        true
    }
}

/// Terraform's `ModuleInstance.Less`: a shorter path sorts first whatever its
/// names, so every root resource precedes every module resource and
/// `module.z` precedes `module.a.module.b`; equal lengths compare step by step.
impl Ord for ModulePath {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for ModulePath {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

impl FromStr for ModulePath {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ModulePath::parse(s)
    }
}

/// The resource modes that can be recorded in a state file. Terraform's
/// `ephemeral` and `list` modes never reach state, so they are not modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Managed,
    Data,
}

/// Terraform's `Resource.Less` puts data resources before managed ones
/// (`r.Mode == DataResourceMode` when the modes differ), so `data.*` lines
/// come first within each module in `terraform state list`.
impl Ord for Mode {
    fn cmp(&self, other: &Self) -> Ordering {
        fn rank(mode: Mode) -> u8 {
            match mode {
                Mode::Data => 0,
                Mode::Managed => 1,
            }
        }
        rank(*self).cmp(&rank(*other))
    }
}

impl PartialOrd for Mode {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A resource (all of its instances) in a module instance.
///
/// The derived order (module, mode, type, name) is Terraform's
/// `AbsResource.Less`.
///
/// `Display` prints what Terraform prints, which for a managed resource whose
/// type is a mode keyword or a reserved word (`data`, `resource`, `count`,
/// `var`, ...) is text that only parses back with a `resource.` prefix.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceAddr {
    pub module: ModulePath,
    pub mode: Mode,
    pub type_name: String,
    pub name: String,
}

impl ResourceAddr {
    /// Parses an absolute resource address; an instance key is an error, as
    /// in Terraform's `ParseAbsResourceStr`.
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        let parsed = parse_address(s, false)?;
        match parsed.target {
            Target::Resource(resource) => Ok(resource),
            Target::Instance(_) => Err(AddressError::new(
                "expected a resource address, but this names one instance of it",
                parsed.key_at.unwrap_or(0),
            )),
            Target::Module(_) => Err(AddressError::new(
                "expected a resource address, but this is a module path",
                parsed.start,
            )),
        }
    }
}

impl fmt::Display for ResourceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.module.is_root() {
            write!(f, "{}.", self.module)?;
        }
        if self.mode == Mode::Data {
            f.write_str("data.")?;
        }
        write!(f, "{}.{}", self.type_name, self.name)
    }
}

impl FromStr for ResourceAddr {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ResourceAddr::parse(s)
    }
}

/// One instance of a resource: the unit `terraform state list` prints.
///
/// The derived order (resource, then key with no key first) is Terraform's
/// `AbsResourceInstance.Less`, which `state list` sorts by.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceAddr {
    pub resource: ResourceAddr,
    pub key: Option<InstanceKey>,
}

impl InstanceAddr {
    /// Parses an absolute resource instance address; a resource address
    /// without a key is its single unkeyed instance, as in Terraform's
    /// `ParseAbsResourceInstanceStr`.
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        let parsed = parse_address(s, false)?;
        into_instance(parsed)
    }
}

fn into_instance(parsed: ParsedAddress) -> Result<InstanceAddr, AddressError> {
    match parsed.target {
        Target::Resource(resource) => Ok(InstanceAddr {
            resource,
            key: None,
        }),
        Target::Instance(instance) => Ok(instance),
        Target::Module(_) => Err(AddressError::new(
            "expected a resource instance address, but this is a module path",
            parsed.start,
        )),
    }
}

impl fmt::Display for InstanceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.resource)?;
        match &self.key {
            Some(key) => write!(f, "{key}"),
            None => Ok(()),
        }
    }
}

impl FromStr for InstanceAddr {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        InstanceAddr::parse(s)
    }
}

/// One object in the state: an instance's current object (`deposed: None`)
/// or one of its deposed objects.
///
/// Printed the way Terraform's UI names deposed objects,
/// `aws_x.y[0] (deposed object 0123abcd)`. Parsing also takes the form of
/// Terraform's `AbsResourceInstanceObject.String`,
/// `aws_x.y[0] deposed object 0123abcd`, since that appears in its logs.
///
/// The derived order (instance, then current before deposed, deposed keys
/// byte-wise) is Terraform's `AbsResourceInstanceObject.Less`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectAddr {
    pub instance: InstanceAddr,
    pub deposed: Option<String>,
}

impl ObjectAddr {
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        let mut parsed = parse_address(s, true)?;
        let deposed = parsed.deposed.take();
        let instance = into_instance(parsed)?;
        Ok(ObjectAddr { instance, deposed })
    }
}

impl fmt::Display for ObjectAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.instance)?;
        match &self.deposed {
            Some(key) => write!(f, " (deposed object {key})"),
            None => Ok(()),
        }
    }
}

impl FromStr for ObjectAddr {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ObjectAddr::parse(s)
    }
}

/// What `terraform state list ADDR` (and the other `state` commands) accept
/// as ADDR, classified the way Terraform's `ParseTarget` does: a resource
/// address without a key is the whole resource, never its unkeyed instance,
/// so parsing only produces `Instance` with `Some` key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    Module(ModulePath),
    Resource(ResourceAddr),
    Instance(InstanceAddr),
}

impl Target {
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        Ok(parse_address(s, false)?.target)
    }

    /// Whether `terraform state list TARGET` would list `instance`
    /// (`StateMeta.lookupResourceInstanceAddr`).
    ///
    /// A module target lists its own module, every module `is_ancestor_of`
    /// accepts, and every module its `TargetContains` accepts; see
    /// `ModulePath::target_contains` for the one asymmetry that produces. A
    /// resource target looks the resource up by its exact module instance,
    /// so `module.a.aws_x.y` does not list `module.a[0].aws_x.y`.
    pub fn matches(&self, instance: &InstanceAddr) -> bool {
        match self {
            Target::Module(path) => {
                let module = &instance.resource.module;
                path == module || path.is_ancestor_of(module) || path.target_contains(module)
            }
            Target::Resource(resource) => *resource == instance.resource,
            Target::Instance(wanted) => wanted == instance,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Module(path) => write!(f, "{path}"),
            Target::Resource(resource) => write!(f, "{resource}"),
            Target::Instance(instance) => write!(f, "{instance}"),
        }
    }
}

impl FromStr for Target {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::parse(s)
    }
}

/// Why an address was rejected and the byte of the input where the problem
/// was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressError {
    pub message: String,
    pub offset: usize,
}

impl AddressError {
    fn new(message: impl Into<String>, offset: usize) -> Self {
        AddressError {
            message: message.into(),
            offset,
        }
    }
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid address: {} (at byte {})",
            self.message, self.offset
        )
    }
}

impl std::error::Error for AddressError {}

// ---------------------------------------------------------------------------
// Lexing. Terraform hands addresses to HCL's `ParseTraversalAbs`, so this
// follows HCL's expression scanner for the tokens a traversal can contain:
// blanks (space, tab, LF, CRLF) and comments (`#`, `//`, `/* */`) may appear
// between any two tokens, a leading byte-order mark is ignored, and anything
// the traversal grammar cannot use is an error.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Number(String),
    Quoted(String),
    Dot,
    OpenBracket,
    CloseBracket,
    Other(char),
    End,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(name) => format!("name {name:?}"),
            Tok::Number(text) => format!("number {text}"),
            Tok::Quoted(_) => "a quoted string".to_string(),
            Tok::Dot => "\".\"".to_string(),
            Tok::OpenBracket => "\"[\"".to_string(),
            Tok::CloseBracket => "\"]\"".to_string(),
            Tok::Other(c) => show_char(*c),
            Tok::End => "end of input".to_string(),
        }
    }
}

/// Quotes a character for an error message, keeping the message on one
/// line and making invisible characters visible.
fn show_char(c: char) -> String {
    if is_go_printable(c) {
        format!("\"{c}\"")
    } else if c.is_ascii() {
        format!("\"{}\"", c.escape_default())
    } else {
        format!("\"{}\"", c.escape_unicode())
    }
}

struct Token {
    tok: Tok,
    at: usize,
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        let pos = if src.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer { src, pos }
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn skip_blanks_and_comments(&mut self) -> Result<(), AddressError> {
        loop {
            let rest = self.rest();
            if rest.starts_with([' ', '\t', '\n']) {
                self.pos += 1;
            } else if rest.starts_with("\r\n") {
                self.pos += 2;
            } else if rest.starts_with('#') || rest.starts_with("//") {
                self.pos += rest.find('\n').map_or(rest.len(), |i| i + 1);
            } else if let Some(body) = rest.strip_prefix("/*") {
                match body.find("*/") {
                    Some(i) => self.pos += i + 4,
                    None => {
                        return Err(AddressError::new("unterminated /* comment", self.pos));
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    fn next(&mut self) -> Result<Token, AddressError> {
        self.skip_blanks_and_comments()?;
        let at = self.pos;
        let Some(c) = self.rest().chars().next() else {
            return Ok(Token { tok: Tok::End, at });
        };
        let tok = match c {
            '.' => {
                self.pos += 1;
                Tok::Dot
            }
            '[' => {
                self.pos += 1;
                Tok::OpenBracket
            }
            ']' => {
                self.pos += 1;
                Tok::CloseBracket
            }
            '"' => Tok::Quoted(self.quoted()?),
            '0'..='9' => Tok::Number(self.number()),
            c if c == '_' || is_id_start(c) => Tok::Ident(self.ident()),
            c => {
                self.pos += c.len_utf8();
                Tok::Other(c)
            }
        };
        Ok(Token { tok, at })
    }

    fn ident(&mut self) -> String {
        let rest = self.rest();
        let mut chars = rest.char_indices();
        chars.next();
        let end = chars
            .find(|&(_, c)| !(c == '-' || is_id_continue(c)))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += end;
        rest[..end].to_string()
    }

    /// HCL's number literal: a digit followed by digits, dots and exponents
    /// (`e`, optional sign, digit), never ending in a dot. Whether the text
    /// is a usable number is decided later, as HCL does, so `1..2` is one
    /// (invalid) literal rather than a literal followed by dots.
    fn number(&mut self) -> String {
        let bytes = self.rest().as_bytes();
        let mut i = 1;
        let mut end = 1;
        loop {
            match bytes.get(i) {
                Some(b'0'..=b'9') => {
                    i += 1;
                    end = i;
                }
                Some(b'.') => i += 1,
                Some(b'e' | b'E') => {
                    let mut j = i + 1;
                    if matches!(bytes.get(j), Some(b'+' | b'-')) {
                        j += 1;
                    }
                    if !matches!(bytes.get(j), Some(b'0'..=b'9')) {
                        break;
                    }
                    i = j + 1;
                    end = i;
                }
                _ => break,
            }
        }
        let text = self.rest()[..end].to_string();
        self.pos += end;
        text
    }

    /// Decodes an HCL quoted string that must be a literal: the escapes HCL
    /// defines, `$${` and `%%{` for literal template introducers, and an
    /// error for anything that would be a template sequence, since Terraform
    /// rejects those in addresses.
    fn quoted(&mut self) -> Result<String, AddressError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let at = self.pos;
            let rest = self.rest();
            let Some(c) = rest.chars().next() else {
                return Err(AddressError::new("unterminated quoted string", open));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                '\n' | '\r' => {
                    return Err(AddressError::new(
                        "a quoted string cannot contain a line break; write \\n or \\r instead",
                        at,
                    ));
                }
                '\\' => {
                    self.pos += 1;
                    out.push(self.escape(at)?);
                }
                '$' | '%' => {
                    let after = &rest[1..];
                    if after.starts_with('{') {
                        let what = if c == '$' {
                            "interpolation"
                        } else {
                            "directive"
                        };
                        return Err(AddressError::new(
                            format!(
                                "template {what} \"{c}{{\" is not allowed in an address; write \"{c}{c}{{\" for a literal \"{c}{{\""
                            ),
                            at,
                        ));
                    }
                    if after.starts_with(c) && after[1..].starts_with('{') {
                        out.push(c);
                        out.push('{');
                        self.pos += 3;
                    } else {
                        out.push(c);
                        self.pos += 1;
                    }
                }
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// Decodes the escape whose backslash is at `at`; `self.pos` is just
    /// past the backslash.
    fn escape(&mut self, at: usize) -> Result<char, AddressError> {
        let Some(selector) = self.rest().chars().next() else {
            return Err(AddressError::new("unterminated quoted string", at));
        };
        self.pos += selector.len_utf8();
        let simple = match selector {
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            _ => None,
        };
        if let Some(c) = simple {
            return Ok(c);
        }
        let digits = match selector {
            'u' => 4,
            'U' => 8,
            '\n' | '\r' => {
                return Err(AddressError::new(
                    "a quoted string cannot contain a line break; write \\n or \\r instead",
                    at,
                ));
            }
            other => {
                return Err(AddressError::new(
                    format!(
                        "unknown escape sequence \"\\{}\" in quoted string",
                        other.escape_debug()
                    ),
                    at,
                ));
            }
        };
        let hex: String = self
            .rest()
            .chars()
            .take(digits)
            .take_while(char::is_ascii_hexdigit)
            .collect();
        if hex.len() != digits {
            return Err(AddressError::new(
                format!("\"\\{selector}\" must be followed by exactly {digits} hexadecimal digits"),
                at,
            ));
        }
        self.pos += digits;
        let code = u32::from_str_radix(&hex, 16).expect("only hex digits were taken");
        char::from_u32(code).ok_or_else(|| {
            AddressError::new(
                format!("\"\\{selector}{hex}\" is not a Unicode scalar value"),
                at,
            )
        })
    }
}

// ---------------------------------------------------------------------------
// Traversal: a root name followed by `.name` and `[key]` steps, as HCL's
// `parseTraversal` produces it (without splats, which `ParseTargetStr`
// does not allow).

enum StepKind {
    Name(String),
    /// The literal's text and where it starts, for errors about its value.
    Number(String, usize),
    Str(String),
}

struct Step {
    kind: StepKind,
    at: usize,
}

impl Step {
    fn describe(&self) -> String {
        match &self.kind {
            StepKind::Name(name) => format!("name {name:?}"),
            StepKind::Number(text, _) => format!("index [{text}]"),
            StepKind::Str(_) => "a string index".to_string(),
        }
    }

    fn name(&self) -> Option<&str> {
        match &self.kind {
            StepKind::Name(name) => Some(name),
            _ => None,
        }
    }
}

struct Traversal {
    steps: Vec<Step>,
    deposed: Option<String>,
    end: usize,
}

fn parse_traversal(src: &str, allow_deposed: bool) -> Result<Traversal, AddressError> {
    let mut lexer = Lexer::new(src);
    let first = lexer.next()?;
    let root = match first.tok {
        Tok::Ident(name) => name,
        Tok::End => return Err(AddressError::new("the address is empty", first.at)),
        other => {
            return Err(AddressError::new(
                format!(
                    "an address must start with a name, found {}",
                    other.describe()
                ),
                first.at,
            ));
        }
    };
    let mut steps = vec![Step {
        kind: StepKind::Name(root),
        at: first.at,
    }];
    let mut deposed = None;
    loop {
        let token = lexer.next()?;
        match token.tok {
            Tok::End => break,
            Tok::Dot => {
                let name = lexer.next()?;
                match name.tok {
                    Tok::Ident(name) => steps.push(Step {
                        kind: StepKind::Name(name),
                        at: token.at,
                    }),
                    Tok::Other('*') => {
                        return Err(AddressError::new(
                            "the wildcard \".*\" is not allowed in an address",
                            name.at,
                        ));
                    }
                    other => {
                        return Err(AddressError::new(
                            format!("expected a name after \".\", found {}", other.describe()),
                            name.at,
                        ));
                    }
                }
            }
            Tok::OpenBracket => {
                let key = lexer.next()?;
                let kind = match key.tok {
                    Tok::Number(text) => StepKind::Number(text, key.at),
                    Tok::Quoted(s) => StepKind::Str(s),
                    Tok::Other('*') => {
                        return Err(AddressError::new(
                            "the wildcard \"[*]\" is not allowed in an address",
                            key.at,
                        ));
                    }
                    Tok::Other('-') => {
                        return Err(AddressError::new("an index cannot be negative", key.at));
                    }
                    other => {
                        return Err(AddressError::new(
                            format!(
                                "an index must be a whole number or a quoted string, found {}",
                                other.describe()
                            ),
                            key.at,
                        ));
                    }
                };
                let close = lexer.next()?;
                if close.tok != Tok::CloseBracket {
                    return Err(AddressError::new(
                        format!(
                            "expected \"]\" to close the index, found {}",
                            close.tok.describe()
                        ),
                        close.at,
                    ));
                }
                steps.push(Step { kind, at: token.at });
            }
            Tok::Other('(') if allow_deposed => {
                deposed = Some(deposed_suffix(src, token.at, true)?);
                break;
            }
            Tok::Ident(ref word) if allow_deposed && word == "deposed" => {
                deposed = Some(deposed_suffix(src, token.at, false)?);
                break;
            }
            other => {
                return Err(AddressError::new(
                    format!(
                        "expected \".\", \"[\" or the end of the address, found {}",
                        other.describe()
                    ),
                    token.at,
                ));
            }
        }
    }
    Ok(Traversal {
        steps,
        deposed,
        end: src.len(),
    })
}

/// Reads `(deposed object KEY)` (or the unparenthesised form) starting at
/// `at` through to the end of the input.
fn deposed_suffix(src: &str, at: usize, parenthesized: bool) -> Result<String, AddressError> {
    fn blank(c: char) -> bool {
        matches!(c, ' ' | '\t' | '\n' | '\r')
    }
    let expected = || {
        AddressError::new(
            "expected \"(deposed object KEY)\" after the instance address",
            at,
        )
    };
    let mut rest = &src[at..];
    if parenthesized {
        rest = rest[1..].trim_start_matches(blank);
    }
    rest = rest.strip_prefix("deposed").ok_or_else(expected)?;
    let trimmed = rest.trim_start_matches(blank);
    if trimmed.len() == rest.len() {
        return Err(expected());
    }
    rest = trimmed.strip_prefix("object").ok_or_else(expected)?;
    let trimmed = rest.trim_start_matches(blank);
    if trimmed.len() == rest.len() {
        return Err(expected());
    }
    let key_at = src.len() - trimmed.len();
    let key_len = trimmed
        .find(|c: char| blank(c) || c == ')')
        .unwrap_or(trimmed.len());
    let key = &trimmed[..key_len];
    // Terraform generates deposed keys as eight lowercase hex digits and its
    // `ParseDeposedKey` accepts nothing else.
    if key.len() != 8 || !key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(AddressError::new(
            format!("a deposed key is eight lowercase hexadecimal digits, found {key:?}"),
            key_at,
        ));
    }
    rest = trimmed[key_len..].trim_start_matches(blank);
    if parenthesized {
        rest = rest
            .strip_prefix(')')
            .ok_or_else(|| {
                AddressError::new(
                    "expected \")\" after the deposed key",
                    src.len() - rest.len(),
                )
            })?
            .trim_start_matches(blank);
    }
    if !rest.is_empty() {
        return Err(AddressError::new(
            "unexpected text after the deposed object key",
            src.len() - rest.len(),
        ));
    }
    Ok(key.to_string())
}

// ---------------------------------------------------------------------------
// Interpreting a traversal as an address, following Terraform's
// `parseModuleInstancePrefix` and `parseResourceInstanceUnderModule`.

/// Words that cannot start a resource address because they would read as
/// something else in an expression; Terraform asks for a `resource.` prefix
/// when a resource type really has one of these names.
const RESERVED_ROOTS: &[&str] = &[
    "count",
    "each",
    "local",
    "module",
    "path",
    "self",
    "terraform",
    "var",
    "template",
    "lazy",
    "arg",
];

struct ParsedAddress {
    target: Target,
    /// Where the resource instance key was, for a better error when a key
    /// is not wanted.
    key_at: Option<usize>,
    /// Where the address begins, past any leading blanks or comments.
    start: usize,
    deposed: Option<String>,
}

fn parse_address(src: &str, allow_deposed: bool) -> Result<ParsedAddress, AddressError> {
    let traversal = parse_traversal(src, allow_deposed)?;
    let start = traversal.steps[0].at;
    let (module, used) = module_prefix(&traversal.steps)?;
    let rest = &traversal.steps[used..];
    if rest.is_empty() {
        if traversal.deposed.is_some() {
            return Err(AddressError::new(
                "a deposed object needs a resource instance address, but this is a module path",
                start,
            ));
        }
        return Ok(ParsedAddress {
            target: Target::Module(module),
            key_at: None,
            start,
            deposed: None,
        });
    }
    let (resource, key) = resource_under_module(module, rest, traversal.end)?;
    let (target, key_at) = match key {
        None => (Target::Resource(resource), None),
        Some((key, at)) => (
            Target::Instance(InstanceAddr {
                resource,
                key: Some(key),
            }),
            Some(at),
        ),
    };
    Ok(ParsedAddress {
        target,
        key_at,
        start,
        deposed: traversal.deposed,
    })
}

/// Consumes the leading `module.NAME[KEY]` steps; returns the path and how
/// many steps it used.
fn module_prefix(steps: &[Step]) -> Result<(ModulePath, usize), AddressError> {
    let mut path = Vec::new();
    let mut i = 0;
    while let Some(step) = steps.get(i) {
        let Some(word) = step.name() else {
            return Err(AddressError::new(
                "a module instance key must be followed by \".\" and a name",
                step.at,
            ));
        };
        if word != "module" {
            break;
        }
        let name = match steps.get(i + 1) {
            Some(Step {
                kind: StepKind::Name(name),
                ..
            }) => name.clone(),
            Some(other) => {
                return Err(AddressError::new(
                    format!(
                        "\"module\" must be followed by \".\" and a module name, found {}",
                        other.describe()
                    ),
                    other.at,
                ));
            }
            None => {
                return Err(AddressError::new(
                    "\"module\" must be followed by \".\" and a module name",
                    step.at,
                ));
            }
        };
        i += 2;
        let mut key = None;
        if let Some(step) = steps.get(i)
            && let Some(k) = index_key(step, "module")?
        {
            key = Some(k);
            i += 1;
        }
        path.push(ModuleStep { name, key });
    }
    Ok((ModulePath(path), i))
}

/// Converts an index step to an instance key; `None` if the step is a name.
fn index_key(step: &Step, what: &str) -> Result<Option<InstanceKey>, AddressError> {
    match &step.kind {
        StepKind::Name(_) => Ok(None),
        StepKind::Str(s) => Ok(Some(InstanceKey::Str(s.clone()))),
        StepKind::Number(text, at) => whole_number(text)
            .map(|n| Some(InstanceKey::Int(n)))
            .map_err(|problem| AddressError::new(format!("{what} key {text} {problem}"), *at)),
    }
}

type KeyAndOffset = (InstanceKey, usize);

fn resource_under_module(
    module: ModulePath,
    steps: &[Step],
    end: usize,
) -> Result<(ResourceAddr, Option<KeyAndOffset>), AddressError> {
    let first = &steps[0];
    let mut mode = Mode::Managed;
    let mut rest = steps;
    match first.name() {
        Some("data") => {
            mode = Mode::Data;
            rest = &steps[1..];
        }
        Some("resource") => rest = &steps[1..],
        Some(word @ ("ephemeral" | "list")) => {
            return Err(AddressError::new(
                format!(
                    "{word} resources are never stored in state, so they cannot be addressed here"
                ),
                first.at,
            ));
        }
        Some(word) if RESERVED_ROOTS.contains(&word) => {
            return Err(AddressError::new(
                format!(
                    "{word:?} is a reserved word and cannot start a resource address; if it is a resource type, write \"resource.{word}\""
                ),
                first.at,
            ));
        }
        _ => {}
    }
    if rest.len() < 2 {
        let at = rest.first().map_or(end, |s| s.at);
        return Err(AddressError::new(
            "a resource address needs a resource type and a resource name",
            at,
        ));
    }
    let Some(type_name) = rest[0].name() else {
        let what = match mode {
            Mode::Managed => "a resource type",
            Mode::Data => "a data source type",
        };
        return Err(AddressError::new(
            format!("expected {what}, found {}", rest[0].describe()),
            rest[0].at,
        ));
    };
    let Some(name) = rest[1].name() else {
        return Err(AddressError::new(
            format!("expected a resource name, found {}", rest[1].describe()),
            rest[1].at,
        ));
    };
    let resource = ResourceAddr {
        module,
        mode,
        type_name: type_name.to_string(),
        name: name.to_string(),
    };
    match &rest[2..] {
        [] => Ok((resource, None)),
        [step] => match index_key(step, "resource instance")? {
            Some(key) => Ok((resource, Some((key, step.at)))),
            None => Err(AddressError::new(
                format!(
                    "a resource instance key must be given in square brackets, found {}",
                    step.describe()
                ),
                step.at,
            )),
        },
        [_, extra, ..] => Err(AddressError::new(
            format!(
                "unexpected {} after the resource instance address",
                extra.describe()
            ),
            extra.at,
        )),
    }
}

/// The integer an HCL number literal denotes, if it is a whole number that
/// fits Go's `int`, which is what Terraform converts instance keys to. HCL
/// reads literals as decimal floating point, so `1e3`, `007` and `1.0` are
/// all valid integer keys. On failure returns the rest of an error sentence.
fn whole_number(text: &str) -> Result<i64, String> {
    let invalid = || "is not a valid number".to_string();
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, "0"),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits_only(int_part) || !digits_only(frac_part) {
        return Err(invalid());
    }
    let (exp_negative, exp_digits) = match exponent.as_bytes().first() {
        Some(b'-') => (true, &exponent[1..]),
        Some(b'+') => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    if exp_digits.is_empty() || !digits_only(exp_digits) {
        return Err(invalid());
    }
    let digits = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    let not_whole = || "is not a whole number".to_string();
    let too_large = || format!("is too large; the largest allowed is {}", i64::MAX);
    // An exponent beyond i64 leaves a non-zero mantissa either far too
    // large or far too small to be an integer key.
    let Ok(magnitude) = exp_digits.parse::<i64>() else {
        return Err(if exp_negative {
            not_whole()
        } else {
            too_large()
        });
    };
    let exponent = if exp_negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    let scale = exponent - frac_part.len() as i128;
    let whole: String = if scale >= 0 {
        if digits.len() as i128 + scale > 19 {
            return Err(too_large());
        }
        format!("{digits}{}", "0".repeat(scale as usize))
    } else {
        let cut = (-scale) as u128;
        if cut >= digits.len() as u128 {
            return Err(not_whole());
        }
        let (kept, dropped) = digits.split_at(digits.len() - cut as usize);
        if dropped.bytes().any(|b| b != b'0') {
            return Err(not_whole());
        }
        kept.to_string()
    };
    whole.parse::<i64>().map_err(|_| too_large())
}

// ---------------------------------------------------------------------------
// Character classes. Exact tables rather than std's approximations, because
// the goal is byte-identical behaviour with Terraform:
// - HCL identifiers are `(ID_Start | '_') (ID_Continue | '-')*` using the
//   Unicode 9.0.0 derived properties HCL's scanner was generated from.
// - Terraform escapes a rune in a string key when Go's `unicode.IsPrint` is
//   false: anything outside categories L, M, N, P, S except ASCII space.
//   The table is Unicode 15.1.0, the version of Go 1.23 and later (Terraform
//   builds with Go 1.26).
// The tables were generated from HCL's `unicode_derived.rl` and from the
// Unicode 15.1.0 character database; they hold inclusive ranges, sorted.

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                Ordering::Less
            } else if lo > c {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

fn is_id_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_table(ID_START, c)
}

fn is_id_continue(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    in_table(ID_START, c) || in_table(ID_CONTINUE_EXTRA, c)
}

fn is_go_printable(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    !in_table(NOT_PRINTABLE, c)
}

#[rustfmt::skip]
static ID_START: &[(u32, u32)] = &[
    (0x0041, 0x005A), (0x0061, 0x007A), (0x00AA, 0x00AA), (0x00B5, 0x00B5), (0x00BA, 0x00BA), (0x00C0, 0x00D6),
    (0x00D8, 0x00F6), (0x00F8, 0x02C1), (0x02C6, 0x02D1), (0x02E0, 0x02E4), (0x02EC, 0x02EC), (0x02EE, 0x02EE),
    (0x0370, 0x0374), (0x0376, 0x0377), (0x037A, 0x037D), (0x037F, 0x037F), (0x0386, 0x0386), (0x0388, 0x038A),
    (0x038C, 0x038C), (0x038E, 0x03A1), (0x03A3, 0x03F5), (0x03F7, 0x0481), (0x048A, 0x052F), (0x0531, 0x0556),
    (0x0559, 0x0559), (0x0561, 0x0587), (0x05D0, 0x05EA), (0x05F0, 0x05F2), (0x0620, 0x064A), (0x066E, 0x066F),
    (0x0671, 0x06D3), (0x06D5, 0x06D5), (0x06E5, 0x06E6), (0x06EE, 0x06EF), (0x06FA, 0x06FC), (0x06FF, 0x06FF),
    (0x0710, 0x0710), (0x0712, 0x072F), (0x074D, 0x07A5), (0x07B1, 0x07B1), (0x07CA, 0x07EA), (0x07F4, 0x07F5),
    (0x07FA, 0x07FA), (0x0800, 0x0815), (0x081A, 0x081A), (0x0824, 0x0824), (0x0828, 0x0828), (0x0840, 0x0858),
    (0x08A0, 0x08B4), (0x08B6, 0x08BD), (0x0904, 0x0939), (0x093D, 0x093D), (0x0950, 0x0950), (0x0958, 0x0961),
    (0x0971, 0x0980), (0x0985, 0x098C), (0x098F, 0x0990), (0x0993, 0x09A8), (0x09AA, 0x09B0), (0x09B2, 0x09B2),
    (0x09B6, 0x09B9), (0x09BD, 0x09BD), (0x09CE, 0x09CE), (0x09DC, 0x09DD), (0x09DF, 0x09E1), (0x09F0, 0x09F1),
    (0x0A05, 0x0A0A), (0x0A0F, 0x0A10), (0x0A13, 0x0A28), (0x0A2A, 0x0A30), (0x0A32, 0x0A33), (0x0A35, 0x0A36),
    (0x0A38, 0x0A39), (0x0A59, 0x0A5C), (0x0A5E, 0x0A5E), (0x0A72, 0x0A74), (0x0A85, 0x0A8D), (0x0A8F, 0x0A91),
    (0x0A93, 0x0AA8), (0x0AAA, 0x0AB0), (0x0AB2, 0x0AB3), (0x0AB5, 0x0AB9), (0x0ABD, 0x0ABD), (0x0AD0, 0x0AD0),
    (0x0AE0, 0x0AE1), (0x0AF9, 0x0AF9), (0x0B05, 0x0B0C), (0x0B0F, 0x0B10), (0x0B13, 0x0B28), (0x0B2A, 0x0B30),
    (0x0B32, 0x0B33), (0x0B35, 0x0B39), (0x0B3D, 0x0B3D), (0x0B5C, 0x0B5D), (0x0B5F, 0x0B61), (0x0B71, 0x0B71),
    (0x0B83, 0x0B83), (0x0B85, 0x0B8A), (0x0B8E, 0x0B90), (0x0B92, 0x0B95), (0x0B99, 0x0B9A), (0x0B9C, 0x0B9C),
    (0x0B9E, 0x0B9F), (0x0BA3, 0x0BA4), (0x0BA8, 0x0BAA), (0x0BAE, 0x0BB9), (0x0BD0, 0x0BD0), (0x0C05, 0x0C0C),
    (0x0C0E, 0x0C10), (0x0C12, 0x0C28), (0x0C2A, 0x0C39), (0x0C3D, 0x0C3D), (0x0C58, 0x0C5A), (0x0C60, 0x0C61),
    (0x0C80, 0x0C80), (0x0C85, 0x0C8C), (0x0C8E, 0x0C90), (0x0C92, 0x0CA8), (0x0CAA, 0x0CB3), (0x0CB5, 0x0CB9),
    (0x0CBD, 0x0CBD), (0x0CDE, 0x0CDE), (0x0CE0, 0x0CE1), (0x0CF1, 0x0CF2), (0x0D05, 0x0D0C), (0x0D0E, 0x0D10),
    (0x0D12, 0x0D3A), (0x0D3D, 0x0D3D), (0x0D4E, 0x0D4E), (0x0D54, 0x0D56), (0x0D5F, 0x0D61), (0x0D7A, 0x0D7F),
    (0x0D85, 0x0D96), (0x0D9A, 0x0DB1), (0x0DB3, 0x0DBB), (0x0DBD, 0x0DBD), (0x0DC0, 0x0DC6), (0x0E01, 0x0E30),
    (0x0E32, 0x0E33), (0x0E40, 0x0E46), (0x0E81, 0x0E82), (0x0E84, 0x0E84), (0x0E87, 0x0E88), (0x0E8A, 0x0E8A),
    (0x0E8D, 0x0E8D), (0x0E94, 0x0E97), (0x0E99, 0x0E9F), (0x0EA1, 0x0EA3), (0x0EA5, 0x0EA5), (0x0EA7, 0x0EA7),
    (0x0EAA, 0x0EAB), (0x0EAD, 0x0EB0), (0x0EB2, 0x0EB3), (0x0EBD, 0x0EBD), (0x0EC0, 0x0EC4), (0x0EC6, 0x0EC6),
    (0x0EDC, 0x0EDF), (0x0F00, 0x0F00), (0x0F40, 0x0F47), (0x0F49, 0x0F6C), (0x0F88, 0x0F8C), (0x1000, 0x102A),
    (0x103F, 0x103F), (0x1050, 0x1055), (0x105A, 0x105D), (0x1061, 0x1061), (0x1065, 0x1066), (0x106E, 0x1070),
    (0x1075, 0x1081), (0x108E, 0x108E), (0x10A0, 0x10C5), (0x10C7, 0x10C7), (0x10CD, 0x10CD), (0x10D0, 0x10FA),
    (0x10FC, 0x1248), (0x124A, 0x124D), (0x1250, 0x1256), (0x1258, 0x1258), (0x125A, 0x125D), (0x1260, 0x1288),
    (0x128A, 0x128D), (0x1290, 0x12B0), (0x12B2, 0x12B5), (0x12B8, 0x12BE), (0x12C0, 0x12C0), (0x12C2, 0x12C5),
    (0x12C8, 0x12D6), (0x12D8, 0x1310), (0x1312, 0x1315), (0x1318, 0x135A), (0x1380, 0x138F), (0x13A0, 0x13F5),
    (0x13F8, 0x13FD), (0x1401, 0x166C), (0x166F, 0x167F), (0x1681, 0x169A), (0x16A0, 0x16EA), (0x16EE, 0x16F8),
    (0x1700, 0x170C), (0x170E, 0x1711), (0x1720, 0x1731), (0x1740, 0x1751), (0x1760, 0x176C), (0x176E, 0x1770),
    (0x1780, 0x17B3), (0x17D7, 0x17D7), (0x17DC, 0x17DC), (0x1820, 0x1877), (0x1880, 0x18A8), (0x18AA, 0x18AA),
    (0x18B0, 0x18F5), (0x1900, 0x191E), (0x1950, 0x196D), (0x1970, 0x1974), (0x1980, 0x19AB), (0x19B0, 0x19C9),
    (0x1A00, 0x1A16), (0x1A20, 0x1A54), (0x1AA7, 0x1AA7), (0x1B05, 0x1B33), (0x1B45, 0x1B4B), (0x1B83, 0x1BA0),
    (0x1BAE, 0x1BAF), (0x1BBA, 0x1BE5), (0x1C00, 0x1C23), (0x1C4D, 0x1C4F), (0x1C5A, 0x1C7D), (0x1C80, 0x1C88),
    (0x1CE9, 0x1CEC), (0x1CEE, 0x1CF1), (0x1CF5, 0x1CF6), (0x1D00, 0x1DBF), (0x1E00, 0x1F15), (0x1F18, 0x1F1D),
    (0x1F20, 0x1F45), (0x1F48, 0x1F4D), (0x1F50, 0x1F57), (0x1F59, 0x1F59), (0x1F5B, 0x1F5B), (0x1F5D, 0x1F5D),
    (0x1F5F, 0x1F7D), (0x1F80, 0x1FB4), (0x1FB6, 0x1FBC), (0x1FBE, 0x1FBE), (0x1FC2, 0x1FC4), (0x1FC6, 0x1FCC),
    (0x1FD0, 0x1FD3), (0x1FD6, 0x1FDB), (0x1FE0, 0x1FEC), (0x1FF2, 0x1FF4), (0x1FF6, 0x1FFC), (0x2071, 0x2071),
    (0x207F, 0x207F), (0x2090, 0x209C), (0x2102, 0x2102), (0x2107, 0x2107), (0x210A, 0x2113), (0x2115, 0x2115),
    (0x2118, 0x211D), (0x2124, 0x2124), (0x2126, 0x2126), (0x2128, 0x2128), (0x212A, 0x2139), (0x213C, 0x213F),
    (0x2145, 0x2149), (0x214E, 0x214E), (0x2160, 0x2188), (0x2C00, 0x2C2E), (0x2C30, 0x2C5E), (0x2C60, 0x2CE4),
    (0x2CEB, 0x2CEE), (0x2CF2, 0x2CF3), (0x2D00, 0x2D25), (0x2D27, 0x2D27), (0x2D2D, 0x2D2D), (0x2D30, 0x2D67),
    (0x2D6F, 0x2D6F), (0x2D80, 0x2D96), (0x2DA0, 0x2DA6), (0x2DA8, 0x2DAE), (0x2DB0, 0x2DB6), (0x2DB8, 0x2DBE),
    (0x2DC0, 0x2DC6), (0x2DC8, 0x2DCE), (0x2DD0, 0x2DD6), (0x2DD8, 0x2DDE), (0x3005, 0x3007), (0x3021, 0x3029),
    (0x3031, 0x3035), (0x3038, 0x303C), (0x3041, 0x3096), (0x309B, 0x309F), (0x30A1, 0x30FA), (0x30FC, 0x30FF),
    (0x3105, 0x312D), (0x3131, 0x318E), (0x31A0, 0x31BA), (0x31F0, 0x31FF), (0x3400, 0x4DB5), (0x4E00, 0x9FD5),
    (0xA000, 0xA48C), (0xA4D0, 0xA4FD), (0xA500, 0xA60C), (0xA610, 0xA61F), (0xA62A, 0xA62B), (0xA640, 0xA66E),
    (0xA67F, 0xA69D), (0xA6A0, 0xA6EF), (0xA717, 0xA71F), (0xA722, 0xA788), (0xA78B, 0xA7AE), (0xA7B0, 0xA7B7),
    (0xA7F7, 0xA801), (0xA803, 0xA805), (0xA807, 0xA80A), (0xA80C, 0xA822), (0xA840, 0xA873), (0xA882, 0xA8B3),
    (0xA8F2, 0xA8F7), (0xA8FB, 0xA8FB), (0xA8FD, 0xA8FD), (0xA90A, 0xA925), (0xA930, 0xA946), (0xA960, 0xA97C),
    (0xA984, 0xA9B2), (0xA9CF, 0xA9CF), (0xA9E0, 0xA9E4), (0xA9E6, 0xA9EF), (0xA9FA, 0xA9FE), (0xAA00, 0xAA28),
    (0xAA40, 0xAA42), (0xAA44, 0xAA4B), (0xAA60, 0xAA76), (0xAA7A, 0xAA7A), (0xAA7E, 0xAAAF), (0xAAB1, 0xAAB1),
    (0xAAB5, 0xAAB6), (0xAAB9, 0xAABD), (0xAAC0, 0xAAC0), (0xAAC2, 0xAAC2), (0xAADB, 0xAADD), (0xAAE0, 0xAAEA),
    (0xAAF2, 0xAAF4), (0xAB01, 0xAB06), (0xAB09, 0xAB0E), (0xAB11, 0xAB16), (0xAB20, 0xAB26), (0xAB28, 0xAB2E),
    (0xAB30, 0xAB5A), (0xAB5C, 0xAB65), (0xAB70, 0xABE2), (0xAC00, 0xD7A3), (0xD7B0, 0xD7C6), (0xD7CB, 0xD7FB),
    (0xF900, 0xFA6D), (0xFA70, 0xFAD9), (0xFB00, 0xFB06), (0xFB13, 0xFB17), (0xFB1D, 0xFB1D), (0xFB1F, 0xFB28),
    (0xFB2A, 0xFB36), (0xFB38, 0xFB3C), (0xFB3E, 0xFB3E), (0xFB40, 0xFB41), (0xFB43, 0xFB44), (0xFB46, 0xFBB1),
    (0xFBD3, 0xFD3D), (0xFD50, 0xFD8F), (0xFD92, 0xFDC7), (0xFDF0, 0xFDFB), (0xFE70, 0xFE74), (0xFE76, 0xFEFC),
    (0xFF21, 0xFF3A), (0xFF41, 0xFF5A), (0xFF66, 0xFFBE), (0xFFC2, 0xFFC7), (0xFFCA, 0xFFCF), (0xFFD2, 0xFFD7),
    (0xFFDA, 0xFFDC), (0x10000, 0x1000B), (0x1000D, 0x10026), (0x10028, 0x1003A), (0x1003C, 0x1003D), (0x1003F, 0x1004D),
    (0x10050, 0x1005D), (0x10080, 0x100FA), (0x10140, 0x10174), (0x10280, 0x1029C), (0x102A0, 0x102D0), (0x10300, 0x1031F),
    (0x10330, 0x1034A), (0x10350, 0x10375), (0x10380, 0x1039D), (0x103A0, 0x103C3), (0x103C8, 0x103CF), (0x103D1, 0x103D5),
    (0x10400, 0x1049D), (0x104B0, 0x104D3), (0x104D8, 0x104FB), (0x10500, 0x10527), (0x10530, 0x10563), (0x10600, 0x10736),
    (0x10740, 0x10755), (0x10760, 0x10767), (0x10800, 0x10805), (0x10808, 0x10808), (0x1080A, 0x10835), (0x10837, 0x10838),
    (0x1083C, 0x1083C), (0x1083F, 0x10855), (0x10860, 0x10876), (0x10880, 0x1089E), (0x108E0, 0x108F2), (0x108F4, 0x108F5),
    (0x10900, 0x10915), (0x10920, 0x10939), (0x10980, 0x109B7), (0x109BE, 0x109BF), (0x10A00, 0x10A00), (0x10A10, 0x10A13),
    (0x10A15, 0x10A17), (0x10A19, 0x10A33), (0x10A60, 0x10A7C), (0x10A80, 0x10A9C), (0x10AC0, 0x10AC7), (0x10AC9, 0x10AE4),
    (0x10B00, 0x10B35), (0x10B40, 0x10B55), (0x10B60, 0x10B72), (0x10B80, 0x10B91), (0x10C00, 0x10C48), (0x10C80, 0x10CB2),
    (0x10CC0, 0x10CF2), (0x11003, 0x11037), (0x11083, 0x110AF), (0x110D0, 0x110E8), (0x11103, 0x11126), (0x11150, 0x11172),
    (0x11176, 0x11176), (0x11183, 0x111B2), (0x111C1, 0x111C4), (0x111DA, 0x111DA), (0x111DC, 0x111DC), (0x11200, 0x11211),
    (0x11213, 0x1122B), (0x11280, 0x11286), (0x11288, 0x11288), (0x1128A, 0x1128D), (0x1128F, 0x1129D), (0x1129F, 0x112A8),
    (0x112B0, 0x112DE), (0x11305, 0x1130C), (0x1130F, 0x11310), (0x11313, 0x11328), (0x1132A, 0x11330), (0x11332, 0x11333),
    (0x11335, 0x11339), (0x1133D, 0x1133D), (0x11350, 0x11350), (0x1135D, 0x11361), (0x11400, 0x11434), (0x11447, 0x1144A),
    (0x11480, 0x114AF), (0x114C4, 0x114C5), (0x114C7, 0x114C7), (0x11580, 0x115AE), (0x115D8, 0x115DB), (0x11600, 0x1162F),
    (0x11644, 0x11644), (0x11680, 0x116AA), (0x11700, 0x11719), (0x118A0, 0x118DF), (0x118FF, 0x118FF), (0x11AC0, 0x11AF8),
    (0x11C00, 0x11C08), (0x11C0A, 0x11C2E), (0x11C40, 0x11C40), (0x11C72, 0x11C8F), (0x12000, 0x12399), (0x12400, 0x1246E),
    (0x12480, 0x12543), (0x13000, 0x1342E), (0x14400, 0x14646), (0x16800, 0x16A38), (0x16A40, 0x16A5E), (0x16AD0, 0x16AED),
    (0x16B00, 0x16B2F), (0x16B40, 0x16B43), (0x16B63, 0x16B77), (0x16B7D, 0x16B8F), (0x16F00, 0x16F44), (0x16F50, 0x16F50),
    (0x16F93, 0x16F9F), (0x16FE0, 0x16FE0), (0x17000, 0x187EC), (0x18800, 0x18AF2), (0x1B000, 0x1B001), (0x1BC00, 0x1BC6A),
    (0x1BC70, 0x1BC7C), (0x1BC80, 0x1BC88), (0x1BC90, 0x1BC99), (0x1D400, 0x1D454), (0x1D456, 0x1D49C), (0x1D49E, 0x1D49F),
    (0x1D4A2, 0x1D4A2), (0x1D4A5, 0x1D4A6), (0x1D4A9, 0x1D4AC), (0x1D4AE, 0x1D4B9), (0x1D4BB, 0x1D4BB), (0x1D4BD, 0x1D4C3),
    (0x1D4C5, 0x1D505), (0x1D507, 0x1D50A), (0x1D50D, 0x1D514), (0x1D516, 0x1D51C), (0x1D51E, 0x1D539), (0x1D53B, 0x1D53E),
    (0x1D540, 0x1D544), (0x1D546, 0x1D546), (0x1D54A, 0x1D550), (0x1D552, 0x1D6A5), (0x1D6A8, 0x1D6C0), (0x1D6C2, 0x1D6DA),
    (0x1D6DC, 0x1D6FA), (0x1D6FC, 0x1D714), (0x1D716, 0x1D734), (0x1D736, 0x1D74E), (0x1D750, 0x1D76E), (0x1D770, 0x1D788),
    (0x1D78A, 0x1D7A8), (0x1D7AA, 0x1D7C2), (0x1D7C4, 0x1D7CB), (0x1E800, 0x1E8C4), (0x1E900, 0x1E943), (0x1EE00, 0x1EE03),
    (0x1EE05, 0x1EE1F), (0x1EE21, 0x1EE22), (0x1EE24, 0x1EE24), (0x1EE27, 0x1EE27), (0x1EE29, 0x1EE32), (0x1EE34, 0x1EE37),
    (0x1EE39, 0x1EE39), (0x1EE3B, 0x1EE3B), (0x1EE42, 0x1EE42), (0x1EE47, 0x1EE47), (0x1EE49, 0x1EE49), (0x1EE4B, 0x1EE4B),
    (0x1EE4D, 0x1EE4F), (0x1EE51, 0x1EE52), (0x1EE54, 0x1EE54), (0x1EE57, 0x1EE57), (0x1EE59, 0x1EE59), (0x1EE5B, 0x1EE5B),
    (0x1EE5D, 0x1EE5D), (0x1EE5F, 0x1EE5F), (0x1EE61, 0x1EE62), (0x1EE64, 0x1EE64), (0x1EE67, 0x1EE6A), (0x1EE6C, 0x1EE72),
    (0x1EE74, 0x1EE77), (0x1EE79, 0x1EE7C), (0x1EE7E, 0x1EE7E), (0x1EE80, 0x1EE89), (0x1EE8B, 0x1EE9B), (0x1EEA1, 0x1EEA3),
    (0x1EEA5, 0x1EEA9), (0x1EEAB, 0x1EEBB), (0x20000, 0x2A6D6), (0x2A700, 0x2B734), (0x2B740, 0x2B81D), (0x2B820, 0x2CEA1),
    (0x2F800, 0x2FA1D),
];

#[rustfmt::skip]
static ID_CONTINUE_EXTRA: &[(u32, u32)] = &[
    (0x0030, 0x0039), (0x005F, 0x005F), (0x00B7, 0x00B7), (0x0300, 0x036F), (0x0387, 0x0387), (0x0483, 0x0487),
    (0x0591, 0x05BD), (0x05BF, 0x05BF), (0x05C1, 0x05C2), (0x05C4, 0x05C5), (0x05C7, 0x05C7), (0x0610, 0x061A),
    (0x064B, 0x0669), (0x0670, 0x0670), (0x06D6, 0x06DC), (0x06DF, 0x06E4), (0x06E7, 0x06E8), (0x06EA, 0x06ED),
    (0x06F0, 0x06F9), (0x0711, 0x0711), (0x0730, 0x074A), (0x07A6, 0x07B0), (0x07C0, 0x07C9), (0x07EB, 0x07F3),
    (0x0816, 0x0819), (0x081B, 0x0823), (0x0825, 0x0827), (0x0829, 0x082D), (0x0859, 0x085B), (0x08D4, 0x08E1),
    (0x08E3, 0x0903), (0x093A, 0x093C), (0x093E, 0x094F), (0x0951, 0x0957), (0x0962, 0x0963), (0x0966, 0x096F),
    (0x0981, 0x0983), (0x09BC, 0x09BC), (0x09BE, 0x09C4), (0x09C7, 0x09C8), (0x09CB, 0x09CD), (0x09D7, 0x09D7),
    (0x09E2, 0x09E3), (0x09E6, 0x09EF), (0x0A01, 0x0A03), (0x0A3C, 0x0A3C), (0x0A3E, 0x0A42), (0x0A47, 0x0A48),
    (0x0A4B, 0x0A4D), (0x0A51, 0x0A51), (0x0A66, 0x0A71), (0x0A75, 0x0A75), (0x0A81, 0x0A83), (0x0ABC, 0x0ABC),
    (0x0ABE, 0x0AC5), (0x0AC7, 0x0AC9), (0x0ACB, 0x0ACD), (0x0AE2, 0x0AE3), (0x0AE6, 0x0AEF), (0x0B01, 0x0B03),
    (0x0B3C, 0x0B3C), (0x0B3E, 0x0B44), (0x0B47, 0x0B48), (0x0B4B, 0x0B4D), (0x0B56, 0x0B57), (0x0B62, 0x0B63),
    (0x0B66, 0x0B6F), (0x0B82, 0x0B82), (0x0BBE, 0x0BC2), (0x0BC6, 0x0BC8), (0x0BCA, 0x0BCD), (0x0BD7, 0x0BD7),
    (0x0BE6, 0x0BEF), (0x0C00, 0x0C03), (0x0C3E, 0x0C44), (0x0C46, 0x0C48), (0x0C4A, 0x0C4D), (0x0C55, 0x0C56),
    (0x0C62, 0x0C63), (0x0C66, 0x0C6F), (0x0C81, 0x0C83), (0x0CBC, 0x0CBC), (0x0CBE, 0x0CC4), (0x0CC6, 0x0CC8),
    (0x0CCA, 0x0CCD), (0x0CD5, 0x0CD6), (0x0CE2, 0x0CE3), (0x0CE6, 0x0CEF), (0x0D01, 0x0D03), (0x0D3E, 0x0D44),
    (0x0D46, 0x0D48), (0x0D4A, 0x0D4D), (0x0D57, 0x0D57), (0x0D62, 0x0D63), (0x0D66, 0x0D6F), (0x0D82, 0x0D83),
    (0x0DCA, 0x0DCA), (0x0DCF, 0x0DD4), (0x0DD6, 0x0DD6), (0x0DD8, 0x0DDF), (0x0DE6, 0x0DEF), (0x0DF2, 0x0DF3),
    (0x0E31, 0x0E31), (0x0E34, 0x0E3A), (0x0E47, 0x0E4E), (0x0E50, 0x0E59), (0x0EB1, 0x0EB1), (0x0EB4, 0x0EB9),
    (0x0EBB, 0x0EBC), (0x0EC8, 0x0ECD), (0x0ED0, 0x0ED9), (0x0F18, 0x0F19), (0x0F20, 0x0F29), (0x0F35, 0x0F35),
    (0x0F37, 0x0F37), (0x0F39, 0x0F39), (0x0F3E, 0x0F3F), (0x0F71, 0x0F84), (0x0F86, 0x0F87), (0x0F8D, 0x0F97),
    (0x0F99, 0x0FBC), (0x0FC6, 0x0FC6), (0x102B, 0x103E), (0x1040, 0x1049), (0x1056, 0x1059), (0x105E, 0x1060),
    (0x1062, 0x1064), (0x1067, 0x106D), (0x1071, 0x1074), (0x1082, 0x108D), (0x108F, 0x109D), (0x135D, 0x135F),
    (0x1369, 0x1371), (0x1712, 0x1714), (0x1732, 0x1734), (0x1752, 0x1753), (0x1772, 0x1773), (0x17B4, 0x17D3),
    (0x17DD, 0x17DD), (0x17E0, 0x17E9), (0x180B, 0x180D), (0x1810, 0x1819), (0x18A9, 0x18A9), (0x1920, 0x192B),
    (0x1930, 0x193B), (0x1946, 0x194F), (0x19D0, 0x19DA), (0x1A17, 0x1A1B), (0x1A55, 0x1A5E), (0x1A60, 0x1A7C),
    (0x1A7F, 0x1A89), (0x1A90, 0x1A99), (0x1AB0, 0x1ABD), (0x1B00, 0x1B04), (0x1B34, 0x1B44), (0x1B50, 0x1B59),
    (0x1B6B, 0x1B73), (0x1B80, 0x1B82), (0x1BA1, 0x1BAD), (0x1BB0, 0x1BB9), (0x1BE6, 0x1BF3), (0x1C24, 0x1C37),
    (0x1C40, 0x1C49), (0x1C50, 0x1C59), (0x1CD0, 0x1CD2), (0x1CD4, 0x1CE8), (0x1CED, 0x1CED), (0x1CF2, 0x1CF4),
    (0x1CF8, 0x1CF9), (0x1DC0, 0x1DF5), (0x1DFB, 0x1DFF), (0x203F, 0x2040), (0x2054, 0x2054), (0x20D0, 0x20DC),
    (0x20E1, 0x20E1), (0x20E5, 0x20F0), (0x2CEF, 0x2CF1), (0x2D7F, 0x2D7F), (0x2DE0, 0x2DFF), (0x302A, 0x302F),
    (0x3099, 0x309A), (0xA620, 0xA629), (0xA66F, 0xA66F), (0xA674, 0xA67D), (0xA69E, 0xA69F), (0xA6F0, 0xA6F1),
    (0xA802, 0xA802), (0xA806, 0xA806), (0xA80B, 0xA80B), (0xA823, 0xA827), (0xA880, 0xA881), (0xA8B4, 0xA8C5),
    (0xA8D0, 0xA8D9), (0xA8E0, 0xA8F1), (0xA900, 0xA909), (0xA926, 0xA92D), (0xA947, 0xA953), (0xA980, 0xA983),
    (0xA9B3, 0xA9C0), (0xA9D0, 0xA9D9), (0xA9E5, 0xA9E5), (0xA9F0, 0xA9F9), (0xAA29, 0xAA36), (0xAA43, 0xAA43),
    (0xAA4C, 0xAA4D), (0xAA50, 0xAA59), (0xAA7B, 0xAA7D), (0xAAB0, 0xAAB0), (0xAAB2, 0xAAB4), (0xAAB7, 0xAAB8),
    (0xAABE, 0xAABF), (0xAAC1, 0xAAC1), (0xAAEB, 0xAAEF), (0xAAF5, 0xAAF6), (0xABE3, 0xABEA), (0xABEC, 0xABED),
    (0xABF0, 0xABF9), (0xFB1E, 0xFB1E), (0xFE00, 0xFE0F), (0xFE20, 0xFE2F), (0xFE33, 0xFE34), (0xFE4D, 0xFE4F),
    (0xFF10, 0xFF19), (0xFF3F, 0xFF3F), (0x101FD, 0x101FD), (0x102E0, 0x102E0), (0x10376, 0x1037A), (0x104A0, 0x104A9),
    (0x10A01, 0x10A03), (0x10A05, 0x10A06), (0x10A0C, 0x10A0F), (0x10A38, 0x10A3A), (0x10A3F, 0x10A3F), (0x10AE5, 0x10AE6),
    (0x11000, 0x11002), (0x11038, 0x11046), (0x11066, 0x1106F), (0x1107F, 0x11082), (0x110B0, 0x110BA), (0x110F0, 0x110F9),
    (0x11100, 0x11102), (0x11127, 0x11134), (0x11136, 0x1113F), (0x11173, 0x11173), (0x11180, 0x11182), (0x111B3, 0x111C0),
    (0x111CA, 0x111CC), (0x111D0, 0x111D9), (0x1122C, 0x11237), (0x1123E, 0x1123E), (0x112DF, 0x112EA), (0x112F0, 0x112F9),
    (0x11300, 0x11303), (0x1133C, 0x1133C), (0x1133E, 0x11344), (0x11347, 0x11348), (0x1134B, 0x1134D), (0x11357, 0x11357),
    (0x11362, 0x11363), (0x11366, 0x1136C), (0x11370, 0x11374), (0x11435, 0x11446), (0x11450, 0x11459), (0x114B0, 0x114C3),
    (0x114D0, 0x114D9), (0x115AF, 0x115B5), (0x115B8, 0x115C0), (0x115DC, 0x115DD), (0x11630, 0x11640), (0x11650, 0x11659),
    (0x116AB, 0x116B7), (0x116C0, 0x116C9), (0x1171D, 0x1172B), (0x11730, 0x11739), (0x118E0, 0x118E9), (0x11C2F, 0x11C36),
    (0x11C38, 0x11C3F), (0x11C50, 0x11C59), (0x11C92, 0x11CA7), (0x11CA9, 0x11CB6), (0x16A60, 0x16A69), (0x16AF0, 0x16AF4),
    (0x16B30, 0x16B36), (0x16B50, 0x16B59), (0x16F51, 0x16F7E), (0x16F8F, 0x16F92), (0x1BC9D, 0x1BC9E), (0x1D165, 0x1D169),
    (0x1D16D, 0x1D172), (0x1D17B, 0x1D182), (0x1D185, 0x1D18B), (0x1D1AA, 0x1D1AD), (0x1D242, 0x1D244), (0x1D7CE, 0x1D7FF),
    (0x1DA00, 0x1DA36), (0x1DA3B, 0x1DA6C), (0x1DA75, 0x1DA75), (0x1DA84, 0x1DA84), (0x1DA9B, 0x1DA9F), (0x1DAA1, 0x1DAAF),
    (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E8D0, 0x1E8D6),
    (0x1E944, 0x1E94A), (0x1E950, 0x1E959), (0xE0100, 0xE01EF),
];

#[rustfmt::skip]
static NOT_PRINTABLE: &[(u32, u32)] = &[
    (0x0000, 0x001F), (0x007F, 0x00A0), (0x00AD, 0x00AD), (0x0378, 0x0379), (0x0380, 0x0383), (0x038B, 0x038B),
    (0x038D, 0x038D), (0x03A2, 0x03A2), (0x0530, 0x0530), (0x0557, 0x0558), (0x058B, 0x058C), (0x0590, 0x0590),
    (0x05C8, 0x05CF), (0x05EB, 0x05EE), (0x05F5, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070E, 0x070F),
    (0x074B, 0x074C), (0x07B2, 0x07BF), (0x07FB, 0x07FC), (0x082E, 0x082F), (0x083F, 0x083F), (0x085C, 0x085D),
    (0x085F, 0x085F), (0x086B, 0x086F), (0x088F, 0x0897), (0x08E2, 0x08E2), (0x0984, 0x0984), (0x098D, 0x098E),
    (0x0991, 0x0992), (0x09A9, 0x09A9), (0x09B1, 0x09B1), (0x09B3, 0x09B5), (0x09BA, 0x09BB), (0x09C5, 0x09C6),
    (0x09C9, 0x09CA), (0x09CF, 0x09D6), (0x09D8, 0x09DB), (0x09DE, 0x09DE), (0x09E4, 0x09E5), (0x09FF, 0x0A00),
    (0x0A04, 0x0A04), (0x0A0B, 0x0A0E), (0x0A11, 0x0A12), (0x0A29, 0x0A29), (0x0A31, 0x0A31), (0x0A34, 0x0A34),
    (0x0A37, 0x0A37), (0x0A3A, 0x0A3B), (0x0A3D, 0x0A3D), (0x0A43, 0x0A46), (0x0A49, 0x0A4A), (0x0A4E, 0x0A50),
    (0x0A52, 0x0A58), (0x0A5D, 0x0A5D), (0x0A5F, 0x0A65), (0x0A77, 0x0A80), (0x0A84, 0x0A84), (0x0A8E, 0x0A8E),
    (0x0A92, 0x0A92), (0x0AA9, 0x0AA9), (0x0AB1, 0x0AB1), (0x0AB4, 0x0AB4), (0x0ABA, 0x0ABB), (0x0AC6, 0x0AC6),
    (0x0ACA, 0x0ACA), (0x0ACE, 0x0ACF), (0x0AD1, 0x0ADF), (0x0AE4, 0x0AE5), (0x0AF2, 0x0AF8), (0x0B00, 0x0B00),
    (0x0B04, 0x0B04), (0x0B0D, 0x0B0E), (0x0B11, 0x0B12), (0x0B29, 0x0B29), (0x0B31, 0x0B31), (0x0B34, 0x0B34),
    (0x0B3A, 0x0B3B), (0x0B45, 0x0B46), (0x0B49, 0x0B4A), (0x0B4E, 0x0B54), (0x0B58, 0x0B5B), (0x0B5E, 0x0B5E),
    (0x0B64, 0x0B65), (0x0B78, 0x0B81), (0x0B84, 0x0B84), (0x0B8B, 0x0B8D), (0x0B91, 0x0B91), (0x0B96, 0x0B98),
    (0x0B9B, 0x0B9B), (0x0B9D, 0x0B9D), (0x0BA0, 0x0BA2), (0x0BA5, 0x0BA7), (0x0BAB, 0x0BAD), (0x0BBA, 0x0BBD),
    (0x0BC3, 0x0BC5), (0x0BC9, 0x0BC9), (0x0BCE, 0x0BCF), (0x0BD1, 0x0BD6), (0x0BD8, 0x0BE5), (0x0BFB, 0x0BFF),
    (0x0C0D, 0x0C0D), (0x0C11, 0x0C11), (0x0C29, 0x0C29), (0x0C3A, 0x0C3B), (0x0C45, 0x0C45), (0x0C49, 0x0C49),
    (0x0C4E, 0x0C54), (0x0C57, 0x0C57), (0x0C5B, 0x0C5C), (0x0C5E, 0x0C5F), (0x0C64, 0x0C65), (0x0C70, 0x0C76),
    (0x0C8D, 0x0C8D), (0x0C91, 0x0C91), (0x0CA9, 0x0CA9), (0x0CB4, 0x0CB4), (0x0CBA, 0x0CBB), (0x0CC5, 0x0CC5),
    (0x0CC9, 0x0CC9), (0x0CCE, 0x0CD4), (0x0CD7, 0x0CDC), (0x0CDF, 0x0CDF), (0x0CE4, 0x0CE5), (0x0CF0, 0x0CF0),
    (0x0CF4, 0x0CFF), (0x0D0D, 0x0D0D), (0x0D11, 0x0D11), (0x0D45, 0x0D45), (0x0D49, 0x0D49), (0x0D50, 0x0D53),
    (0x0D64, 0x0D65), (0x0D80, 0x0D80), (0x0D84, 0x0D84), (0x0D97, 0x0D99), (0x0DB2, 0x0DB2), (0x0DBC, 0x0DBC),
    (0x0DBE, 0x0DBF), (0x0DC7, 0x0DC9), (0x0DCB, 0x0DCE), (0x0DD5, 0x0DD5), (0x0DD7, 0x0DD7), (0x0DE0, 0x0DE5),
    (0x0DF0, 0x0DF1), (0x0DF5, 0x0E00), (0x0E3B, 0x0E3E), (0x0E5C, 0x0E80), (0x0E83, 0x0E83), (0x0E85, 0x0E85),
    (0x0E8B, 0x0E8B), (0x0EA4, 0x0EA4), (0x0EA6, 0x0EA6), (0x0EBE, 0x0EBF), (0x0EC5, 0x0EC5), (0x0EC7, 0x0EC7),
    (0x0ECF, 0x0ECF), (0x0EDA, 0x0EDB), (0x0EE0, 0x0EFF), (0x0F48, 0x0F48), (0x0F6D, 0x0F70), (0x0F98, 0x0F98),
    (0x0FBD, 0x0FBD), (0x0FCD, 0x0FCD), (0x0FDB, 0x0FFF), (0x10C6, 0x10C6), (0x10C8, 0x10CC), (0x10CE, 0x10CF),
    (0x1249, 0x1249), (0x124E, 0x124F), (0x1257, 0x1257), (0x1259, 0x1259), (0x125E, 0x125F), (0x1289, 0x1289),
    (0x128E, 0x128F), (0x12B1, 0x12B1), (0x12B6, 0x12B7), (0x12BF, 0x12BF), (0x12C1, 0x12C1), (0x12C6, 0x12C7),
    (0x12D7, 0x12D7), (0x1311, 0x1311), (0x1316, 0x1317), (0x135B, 0x135C), (0x137D, 0x137F), (0x139A, 0x139F),
    (0x13F6, 0x13F7), (0x13FE, 0x13FF), (0x1680, 0x1680), (0x169D, 0x169F), (0x16F9, 0x16FF), (0x1716, 0x171E),
    (0x1737, 0x173F), (0x1754, 0x175F), (0x176D, 0x176D), (0x1771, 0x1771), (0x1774, 0x177F), (0x17DE, 0x17DF),
    (0x17EA, 0x17EF), (0x17FA, 0x17FF), (0x180E, 0x180E), (0x181A, 0x181F), (0x1879, 0x187F), (0x18AB, 0x18AF),
    (0x18F6, 0x18FF), (0x191F, 0x191F), (0x192C, 0x192F), (0x193C, 0x193F), (0x1941, 0x1943), (0x196E, 0x196F),
    (0x1975, 0x197F), (0x19AC, 0x19AF), (0x19CA, 0x19CF), (0x19DB, 0x19DD), (0x1A1C, 0x1A1D), (0x1A5F, 0x1A5F),
    (0x1A7D, 0x1A7E), (0x1A8A, 0x1A8F), (0x1A9A, 0x1A9F), (0x1AAE, 0x1AAF), (0x1ACF, 0x1AFF), (0x1B4D, 0x1B4F),
    (0x1B7F, 0x1B7F), (0x1BF4, 0x1BFB), (0x1C38, 0x1C3A), (0x1C4A, 0x1C4C), (0x1C89, 0x1C8F), (0x1CBB, 0x1CBC),
    (0x1CC8, 0x1CCF), (0x1CFB, 0x1CFF), (0x1F16, 0x1F17), (0x1F1E, 0x1F1F), (0x1F46, 0x1F47), (0x1F4E, 0x1F4F),
    (0x1F58, 0x1F58), (0x1F5A, 0x1F5A), (0x1F5C, 0x1F5C), (0x1F5E, 0x1F5E), (0x1F7E, 0x1F7F), (0x1FB5, 0x1FB5),
    (0x1FC5, 0x1FC5), (0x1FD4, 0x1FD5), (0x1FDC, 0x1FDC), (0x1FF0, 0x1FF1), (0x1FF5, 0x1FF5), (0x1FFF, 0x200F),
    (0x2028, 0x202F), (0x205F, 0x206F), (0x2072, 0x2073), (0x208F, 0x208F), (0x209D, 0x209F), (0x20C1, 0x20CF),
    (0x20F1, 0x20FF), (0x218C, 0x218F), (0x2427, 0x243F), (0x244B, 0x245F), (0x2B74, 0x2B75), (0x2B96, 0x2B96),
    (0x2CF4, 0x2CF8), (0x2D26, 0x2D26), (0x2D28, 0x2D2C), (0x2D2E, 0x2D2F), (0x2D68, 0x2D6E), (0x2D71, 0x2D7E),
    (0x2D97, 0x2D9F), (0x2DA7, 0x2DA7), (0x2DAF, 0x2DAF), (0x2DB7, 0x2DB7), (0x2DBF, 0x2DBF), (0x2DC7, 0x2DC7),
    (0x2DCF, 0x2DCF), (0x2DD7, 0x2DD7), (0x2DDF, 0x2DDF), (0x2E5E, 0x2E7F), (0x2E9A, 0x2E9A), (0x2EF4, 0x2EFF),
    (0x2FD6, 0x2FEF), (0x3000, 0x3000), (0x3040, 0x3040), (0x3097, 0x3098), (0x3100, 0x3104), (0x3130, 0x3130),
    (0x318F, 0x318F), (0x31E4, 0x31EE), (0x321F, 0x321F), (0xA48D, 0xA48F), (0xA4C7, 0xA4CF), (0xA62C, 0xA63F),
    (0xA6F8, 0xA6FF), (0xA7CB, 0xA7CF), (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7DA, 0xA7F1), (0xA82D, 0xA82F),
    (0xA83A, 0xA83F), (0xA878, 0xA87F), (0xA8C6, 0xA8CD), (0xA8DA, 0xA8DF), (0xA954, 0xA95E), (0xA97D, 0xA97F),
    (0xA9CE, 0xA9CE), (0xA9DA, 0xA9DD), (0xA9FF, 0xA9FF), (0xAA37, 0xAA3F), (0xAA4E, 0xAA4F), (0xAA5A, 0xAA5B),
    (0xAAC3, 0xAADA), (0xAAF7, 0xAB00), (0xAB07, 0xAB08), (0xAB0F, 0xAB10), (0xAB17, 0xAB1F), (0xAB27, 0xAB27),
    (0xAB2F, 0xAB2F), (0xAB6C, 0xAB6F), (0xABEE, 0xABEF), (0xABFA, 0xABFF), (0xD7A4, 0xD7AF), (0xD7C7, 0xD7CA),
    (0xD7FC, 0xF8FF), (0xFA6E, 0xFA6F), (0xFADA, 0xFAFF), (0xFB07, 0xFB12), (0xFB18, 0xFB1C), (0xFB37, 0xFB37),
    (0xFB3D, 0xFB3D), (0xFB3F, 0xFB3F), (0xFB42, 0xFB42), (0xFB45, 0xFB45), (0xFBC3, 0xFBD2), (0xFD90, 0xFD91),
    (0xFDC8, 0xFDCE), (0xFDD0, 0xFDEF), (0xFE1A, 0xFE1F), (0xFE53, 0xFE53), (0xFE67, 0xFE67), (0xFE6C, 0xFE6F),
    (0xFE75, 0xFE75), (0xFEFD, 0xFF00), (0xFFBF, 0xFFC1), (0xFFC8, 0xFFC9), (0xFFD0, 0xFFD1), (0xFFD8, 0xFFD9),
    (0xFFDD, 0xFFDF), (0xFFE7, 0xFFE7), (0xFFEF, 0xFFFB), (0xFFFE, 0xFFFF), (0x1000C, 0x1000C), (0x10027, 0x10027),
    (0x1003B, 0x1003B), (0x1003E, 0x1003E), (0x1004E, 0x1004F), (0x1005E, 0x1007F), (0x100FB, 0x100FF), (0x10103, 0x10106),
    (0x10134, 0x10136), (0x1018F, 0x1018F), (0x1019D, 0x1019F), (0x101A1, 0x101CF), (0x101FE, 0x1027F), (0x1029D, 0x1029F),
    (0x102D1, 0x102DF), (0x102FC, 0x102FF), (0x10324, 0x1032C), (0x1034B, 0x1034F), (0x1037B, 0x1037F), (0x1039E, 0x1039E),
    (0x103C4, 0x103C7), (0x103D6, 0x103FF), (0x1049E, 0x1049F), (0x104AA, 0x104AF), (0x104D4, 0x104D7), (0x104FC, 0x104FF),
    (0x10528, 0x1052F), (0x10564, 0x1056E), (0x1057B, 0x1057B), (0x1058B, 0x1058B), (0x10593, 0x10593), (0x10596, 0x10596),
    (0x105A2, 0x105A2), (0x105B2, 0x105B2), (0x105BA, 0x105BA), (0x105BD, 0x105FF), (0x10737, 0x1073F), (0x10756, 0x1075F),
    (0x10768, 0x1077F), (0x10786, 0x10786), (0x107B1, 0x107B1), (0x107BB, 0x107FF), (0x10806, 0x10807), (0x10809, 0x10809),
    (0x10836, 0x10836), (0x10839, 0x1083B), (0x1083D, 0x1083E), (0x10856, 0x10856), (0x1089F, 0x108A6), (0x108B0, 0x108DF),
    (0x108F3, 0x108F3), (0x108F6, 0x108FA), (0x1091C, 0x1091E), (0x1093A, 0x1093E), (0x10940, 0x1097F), (0x109B8, 0x109BB),
    (0x109D0, 0x109D1), (0x10A04, 0x10A04), (0x10A07, 0x10A0B), (0x10A14, 0x10A14), (0x10A18, 0x10A18), (0x10A36, 0x10A37),
    (0x10A3B, 0x10A3E), (0x10A49, 0x10A4F), (0x10A59, 0x10A5F), (0x10AA0, 0x10ABF), (0x10AE7, 0x10AEA), (0x10AF7, 0x10AFF),
    (0x10B36, 0x10B38), (0x10B56, 0x10B57), (0x10B73, 0x10B77), (0x10B92, 0x10B98), (0x10B9D, 0x10BA8), (0x10BB0, 0x10BFF),
    (0x10C49, 0x10C7F), (0x10CB3, 0x10CBF), (0x10CF3, 0x10CF9), (0x10D28, 0x10D2F), (0x10D3A, 0x10E5F), (0x10E7F, 0x10E7F),
    (0x10EAA, 0x10EAA), (0x10EAE, 0x10EAF), (0x10EB2, 0x10EFC), (0x10F28, 0x10F2F), (0x10F5A, 0x10F6F), (0x10F8A, 0x10FAF),
    (0x10FCC, 0x10FDF), (0x10FF7, 0x10FFF), (0x1104E, 0x11051), (0x11076, 0x1107E), (0x110BD, 0x110BD), (0x110C3, 0x110CF),
    (0x110E9, 0x110EF), (0x110FA, 0x110FF), (0x11135, 0x11135), (0x11148, 0x1114F), (0x11177, 0x1117F), (0x111E0, 0x111E0),
    (0x111F5, 0x111FF), (0x11212, 0x11212), (0x11242, 0x1127F), (0x11287, 0x11287), (0x11289, 0x11289), (0x1128E, 0x1128E),
    (0x1129E, 0x1129E), (0x112AA, 0x112AF), (0x112EB, 0x112EF), (0x112FA, 0x112FF), (0x11304, 0x11304), (0x1130D, 0x1130E),
    (0x11311, 0x11312), (0x11329, 0x11329), (0x11331, 0x11331), (0x11334, 0x11334), (0x1133A, 0x1133A), (0x11345, 0x11346),
    (0x11349, 0x1134A), (0x1134E, 0x1134F), (0x11351, 0x11356), (0x11358, 0x1135C), (0x11364, 0x11365), (0x1136D, 0x1136F),
    (0x11375, 0x113FF), (0x1145C, 0x1145C), (0x11462, 0x1147F), (0x114C8, 0x114CF), (0x114DA, 0x1157F), (0x115B6, 0x115B7),
    (0x115DE, 0x115FF), (0x11645, 0x1164F), (0x1165A, 0x1165F), (0x1166D, 0x1167F), (0x116BA, 0x116BF), (0x116CA, 0x116FF),
    (0x1171B, 0x1171C), (0x1172C, 0x1172F), (0x11747, 0x117FF), (0x1183C, 0x1189F), (0x118F3, 0x118FE), (0x11907, 0x11908),
    (0x1190A, 0x1190B), (0x11914, 0x11914), (0x11917, 0x11917), (0x11936, 0x11936), (0x11939, 0x1193A), (0x11947, 0x1194F),
    (0x1195A, 0x1199F), (0x119A8, 0x119A9), (0x119D8, 0x119D9), (0x119E5, 0x119FF), (0x11A48, 0x11A4F), (0x11AA3, 0x11AAF),
    (0x11AF9, 0x11AFF), (0x11B0A, 0x11BFF), (0x11C09, 0x11C09), (0x11C37, 0x11C37), (0x11C46, 0x11C4F), (0x11C6D, 0x11C6F),
    (0x11C90, 0x11C91), (0x11CA8, 0x11CA8), (0x11CB7, 0x11CFF), (0x11D07, 0x11D07), (0x11D0A, 0x11D0A), (0x11D37, 0x11D39),
    (0x11D3B, 0x11D3B), (0x11D3E, 0x11D3E), (0x11D48, 0x11D4F), (0x11D5A, 0x11D5F), (0x11D66, 0x11D66), (0x11D69, 0x11D69),
    (0x11D8F, 0x11D8F), (0x11D92, 0x11D92), (0x11D99, 0x11D9F), (0x11DAA, 0x11EDF), (0x11EF9, 0x11EFF), (0x11F11, 0x11F11),
    (0x11F3B, 0x11F3D), (0x11F5A, 0x11FAF), (0x11FB1, 0x11FBF), (0x11FF2, 0x11FFE), (0x1239A, 0x123FF), (0x1246F, 0x1246F),
    (0x12475, 0x1247F), (0x12544, 0x12F8F), (0x12FF3, 0x12FFF), (0x13430, 0x1343F), (0x13456, 0x143FF), (0x14647, 0x167FF),
    (0x16A39, 0x16A3F), (0x16A5F, 0x16A5F), (0x16A6A, 0x16A6D), (0x16ABF, 0x16ABF), (0x16ACA, 0x16ACF), (0x16AEE, 0x16AEF),
    (0x16AF6, 0x16AFF), (0x16B46, 0x16B4F), (0x16B5A, 0x16B5A), (0x16B62, 0x16B62), (0x16B78, 0x16B7C), (0x16B90, 0x16E3F),
    (0x16E9B, 0x16EFF), (0x16F4B, 0x16F4E), (0x16F88, 0x16F8E), (0x16FA0, 0x16FDF), (0x16FE5, 0x16FEF), (0x16FF2, 0x16FFF),
    (0x187F8, 0x187FF), (0x18CD6, 0x18CFF), (0x18D09, 0x1AFEF), (0x1AFF4, 0x1AFF4), (0x1AFFC, 0x1AFFC), (0x1AFFF, 0x1AFFF),
    (0x1B123, 0x1B131), (0x1B133, 0x1B14F), (0x1B153, 0x1B154), (0x1B156, 0x1B163), (0x1B168, 0x1B16F), (0x1B2FC, 0x1BBFF),
    (0x1BC6B, 0x1BC6F), (0x1BC7D, 0x1BC7F), (0x1BC89, 0x1BC8F), (0x1BC9A, 0x1BC9B), (0x1BCA0, 0x1CEFF), (0x1CF2E, 0x1CF2F),
    (0x1CF47, 0x1CF4F), (0x1CFC4, 0x1CFFF), (0x1D0F6, 0x1D0FF), (0x1D127, 0x1D128), (0x1D173, 0x1D17A), (0x1D1EB, 0x1D1FF),
    (0x1D246, 0x1D2BF), (0x1D2D4, 0x1D2DF), (0x1D2F4, 0x1D2FF), (0x1D357, 0x1D35F), (0x1D379, 0x1D3FF), (0x1D455, 0x1D455),
    (0x1D49D, 0x1D49D), (0x1D4A0, 0x1D4A1), (0x1D4A3, 0x1D4A4), (0x1D4A7, 0x1D4A8), (0x1D4AD, 0x1D4AD), (0x1D4BA, 0x1D4BA),
    (0x1D4BC, 0x1D4BC), (0x1D4C4, 0x1D4C4), (0x1D506, 0x1D506), (0x1D50B, 0x1D50C), (0x1D515, 0x1D515), (0x1D51D, 0x1D51D),
    (0x1D53A, 0x1D53A), (0x1D53F, 0x1D53F), (0x1D545, 0x1D545), (0x1D547, 0x1D549), (0x1D551, 0x1D551), (0x1D6A6, 0x1D6A7),
    (0x1D7CC, 0x1D7CD), (0x1DA8C, 0x1DA9A), (0x1DAA0, 0x1DAA0), (0x1DAB0, 0x1DEFF), (0x1DF1F, 0x1DF24), (0x1DF2B, 0x1DFFF),
    (0x1E007, 0x1E007), (0x1E019, 0x1E01A), (0x1E022, 0x1E022), (0x1E025, 0x1E025), (0x1E02B, 0x1E02F), (0x1E06E, 0x1E08E),
    (0x1E090, 0x1E0FF), (0x1E12D, 0x1E12F), (0x1E13E, 0x1E13F), (0x1E14A, 0x1E14D), (0x1E150, 0x1E28F), (0x1E2AF, 0x1E2BF),
    (0x1E2FA, 0x1E2FE), (0x1E300, 0x1E4CF), (0x1E4FA, 0x1E7DF), (0x1E7E7, 0x1E7E7), (0x1E7EC, 0x1E7EC), (0x1E7EF, 0x1E7EF),
    (0x1E7FF, 0x1E7FF), (0x1E8C5, 0x1E8C6), (0x1E8D7, 0x1E8FF), (0x1E94C, 0x1E94F), (0x1E95A, 0x1E95D), (0x1E960, 0x1EC70),
    (0x1ECB5, 0x1ED00), (0x1ED3E, 0x1EDFF), (0x1EE04, 0x1EE04), (0x1EE20, 0x1EE20), (0x1EE23, 0x1EE23), (0x1EE25, 0x1EE26),
    (0x1EE28, 0x1EE28), (0x1EE33, 0x1EE33), (0x1EE38, 0x1EE38), (0x1EE3A, 0x1EE3A), (0x1EE3C, 0x1EE41), (0x1EE43, 0x1EE46),
    (0x1EE48, 0x1EE48), (0x1EE4A, 0x1EE4A), (0x1EE4C, 0x1EE4C), (0x1EE50, 0x1EE50), (0x1EE53, 0x1EE53), (0x1EE55, 0x1EE56),
    (0x1EE58, 0x1EE58), (0x1EE5A, 0x1EE5A), (0x1EE5C, 0x1EE5C), (0x1EE5E, 0x1EE5E), (0x1EE60, 0x1EE60), (0x1EE63, 0x1EE63),
    (0x1EE65, 0x1EE66), (0x1EE6B, 0x1EE6B), (0x1EE73, 0x1EE73), (0x1EE78, 0x1EE78), (0x1EE7D, 0x1EE7D), (0x1EE7F, 0x1EE7F),
    (0x1EE8A, 0x1EE8A), (0x1EE9C, 0x1EEA0), (0x1EEA4, 0x1EEA4), (0x1EEAA, 0x1EEAA), (0x1EEBC, 0x1EEEF), (0x1EEF2, 0x1EFFF),
    (0x1F02C, 0x1F02F), (0x1F094, 0x1F09F), (0x1F0AF, 0x1F0B0), (0x1F0C0, 0x1F0C0), (0x1F0D0, 0x1F0D0), (0x1F0F6, 0x1F0FF),
    (0x1F1AE, 0x1F1E5), (0x1F203, 0x1F20F), (0x1F23C, 0x1F23F), (0x1F249, 0x1F24F), (0x1F252, 0x1F25F), (0x1F266, 0x1F2FF),
    (0x1F6D8, 0x1F6DB), (0x1F6ED, 0x1F6EF), (0x1F6FD, 0x1F6FF), (0x1F777, 0x1F77A), (0x1F7DA, 0x1F7DF), (0x1F7EC, 0x1F7EF),
    (0x1F7F1, 0x1F7FF), (0x1F80C, 0x1F80F), (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8AF),
    (0x1F8B2, 0x1F8FF), (0x1FA54, 0x1FA5F), (0x1FA6E, 0x1FA6F), (0x1FA7D, 0x1FA7F), (0x1FA89, 0x1FA8F), (0x1FABE, 0x1FABE),
    (0x1FAC6, 0x1FACD), (0x1FADC, 0x1FADF), (0x1FAE9, 0x1FAEF), (0x1FAF9, 0x1FAFF), (0x1FB93, 0x1FB93), (0x1FBCB, 0x1FBEF),
    (0x1FBFA, 0x1FFFF), (0x2A6E0, 0x2A6FF), (0x2B73A, 0x2B73F), (0x2B81E, 0x2B81F), (0x2CEA2, 0x2CEAF), (0x2EBE1, 0x2EBEF),
    (0x2EE5E, 0x2F7FF), (0x2FA1E, 0x2FFFF), (0x3134B, 0x3134F), (0x323B0, 0xE00FF), (0xE01F0, 0x10FFFF),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(s: &str) -> InstanceAddr {
        InstanceAddr::parse(s).unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
    }

    fn target(s: &str) -> Target {
        Target::parse(s).unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
    }

    fn target_err(s: &str) -> AddressError {
        match Target::parse(s) {
            Ok(t) => panic!("{s:?} should be rejected, parsed as {t:?}"),
            Err(e) => e,
        }
    }

    fn str_key(s: &str) -> Option<InstanceKey> {
        Some(InstanceKey::Str(s.to_string()))
    }

    fn res(module: ModulePath, mode: Mode, type_name: &str, name: &str) -> ResourceAddr {
        ResourceAddr {
            module,
            mode,
            type_name: type_name.to_string(),
            name: name.to_string(),
        }
    }

    fn step(name: &str, key: Option<InstanceKey>) -> ModuleStep {
        ModuleStep {
            name: name.to_string(),
            key,
        }
    }

    /// Parses, prints the result and checks the text comes back unchanged
    /// and reparses to the same value.
    fn assert_round_trip_instance(s: &str) -> InstanceAddr {
        let parsed = instance(s);
        assert_eq!(parsed.to_string(), s);
        assert_eq!(instance(&parsed.to_string()), parsed);
        parsed
    }

    #[test]
    fn round_trips_nested_module_instance() {
        let parsed = assert_round_trip_instance(r#"module.a["k"].module.b[0].aws_x.y["z"]"#);
        assert_eq!(
            parsed,
            InstanceAddr {
                resource: res(
                    ModulePath(vec![
                        step("a", str_key("k")),
                        step("b", Some(InstanceKey::Int(0)))
                    ]),
                    Mode::Managed,
                    "aws_x",
                    "y",
                ),
                key: str_key("z"),
            }
        );
        assert_eq!(
            parsed.resource.module.to_string(),
            r#"module.a["k"].module.b[0]"#
        );
    }

    #[test]
    fn round_trips_data_resources() {
        for s in [
            "data.aws_ami.ubuntu",
            "data.aws_ami.ubuntu[3]",
            "module.a.data.x.y",
            r#"module.a[1].module.b["c"].data.x.y["k"]"#,
        ] {
            let parsed = assert_round_trip_instance(s);
            assert_eq!(parsed.resource.mode, Mode::Data);
        }
        let r = ResourceAddr::parse("module.a.data.x.y").unwrap();
        assert_eq!(
            r,
            res(ModulePath(vec![step("a", None)]), Mode::Data, "x", "y")
        );
        assert_eq!(r.to_string(), "module.a.data.x.y");
        assert_eq!(
            ResourceAddr::parse("aws_x.y").unwrap().to_string(),
            "aws_x.y"
        );
    }

    #[test]
    fn round_trips_deposed_objects() {
        for s in [
            "aws_x.y (deposed object 0123abcd)",
            r#"module.a["k"].aws_x.y[2] (deposed object deadbeef)"#,
            r#"data.x.y["(deposed object 00000000)"] (deposed object 00000000)"#,
            "aws_x.y",
        ] {
            let parsed = ObjectAddr::parse(s).unwrap();
            assert_eq!(parsed.to_string(), s);
            assert_eq!(ObjectAddr::parse(&parsed.to_string()).unwrap(), parsed);
        }
        let parsed = ObjectAddr::parse("aws_x.y[0] (deposed object 0123abcd)").unwrap();
        assert_eq!(parsed.deposed.as_deref(), Some("0123abcd"));
        assert_eq!(parsed.instance, instance("aws_x.y[0]"));
        // Terraform's own AbsResourceInstanceObject.String() form, and loose
        // spacing, are read too but printed in the UI form.
        let plain = ObjectAddr::parse("aws_x.y[0] deposed object 0123abcd").unwrap();
        assert_eq!(plain, parsed);
        let spaced = ObjectAddr::parse("aws_x.y[0]  ( deposed  object 0123abcd ) ").unwrap();
        assert_eq!(spaced, parsed);
    }

    /// Keys built directly and printed; the expected text follows
    /// instance_key.go `toHCLQuotedString`.
    #[test]
    fn prints_string_keys_like_terraform() {
        let cases: &[(&str, &str)] = &[
            ("", r#"[""]"#),
            ("a\"b", r#"["a\"b"]"#),
            ("back\\slash", r#"["back\\slash"]"#),
            ("line\nbreak", r#"["line\nbreak"]"#),
            ("cr\r", r#"["cr\r"]"#),
            ("tab\there", r#"["tab\there"]"#),
            ("é", r#"["é"]"#),
            ("日本", r#"["日本"]"#),
            ("🚀", r#"["🚀"]"#),
            ("<>&", r#"["<>&"]"#),
            ("${x}", r#"["$${x}"]"#),
            ("%{x}", r#"["%%{x}"]"#),
            ("$x %y $ % {}", r#"["$x %y $ % {}"]"#),
            ("$${", r#"["$$${"]"#),
            ("\u{0}\u{1}\u{7f}", r#"["\u0000\u0001\u007f"]"#),
            // Latin-1 NBSP and soft hyphen are not printable for Go.
            ("\u{a0}\u{ad}", r#"["\u00a0\u00ad"]"#),
            ("zero\u{200b}width", r#"["zero\u200bwidth"]"#),
            ("\u{2028}\u{3000}\u{e000}", r#"["\u2028\u3000\ue000"]"#),
            ("\u{e0001}\u{10ffff}", r#"["\U000e0001\U0010ffff"]"#),
            // U+1FAE8 is in Unicode 15.0, U+1FAE9 only in 16.0, which Go's
            // tables (15.1.0) do not have yet, so Terraform escapes it.
            ("\u{1fae8}\u{1fae9}", r#"["🫨\U0001fae9"]"#),
        ];
        for (key, printed) in cases {
            let k = InstanceKey::Str(key.to_string());
            assert_eq!(k.to_string(), *printed, "printing {key:?}");
            let addr = InstanceAddr {
                resource: res(ModulePath::root(), Mode::Managed, "aws_x", "y"),
                key: Some(k),
            };
            assert_eq!(instance(&addr.to_string()), addr, "reparsing {printed}");
        }
        assert_eq!(InstanceKey::Int(0).to_string(), "[0]");
        assert_eq!(InstanceKey::Int(-1).to_string(), "[-1]");
    }

    #[test]
    fn round_trips_tricky_keys_in_modules_and_resources() {
        for s in [
            r#"aws_x.y["a\"b"]"#,
            r#"aws_x.y["back\\slash"]"#,
            r#"aws_x.y["line\nbreak"]"#,
            r#"aws_x.y["tab\there"]"#,
            r#"aws_x.y["é 日本 🚀"]"#,
            r#"aws_x.y["<>&"]"#,
            r#"aws_x.y["$${"]"#,
            r#"aws_x.y["%%{"]"#,
            r#"aws_x.y[""]"#,
            r#"module.m["\"\\\n\t$${%%{é"].aws_x.y["]."]"#,
        ] {
            assert_round_trip_instance(s);
        }
        assert_eq!(instance(r#"aws_x.y["$${x}"]"#).key, str_key("${x}"));
        assert_eq!(instance(r#"aws_x.y["%%{x}"]"#).key, str_key("%{x}"));
    }

    /// Round trip over many generated keys: whatever we print must parse
    /// back to the same key, and must stay on one line.
    #[test]
    fn printed_keys_always_parse_back() {
        let alphabet: Vec<char> =
            "a\"\\\n\r\t$%{}é日🚀\u{0}\u{7f}\u{a0}\u{200b}\u{e0001}\u{fffe} <>&[].#/*(),"
                .chars()
                .collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 60) as usize;
            let mut key = String::new();
            for i in 0..len {
                let pick = (seed >> (i * 6 % 54)) as usize % alphabet.len();
                key.push(alphabet[pick]);
            }
            let addr = InstanceAddr {
                resource: res(
                    ModulePath(vec![step("m", str_key(&key))]),
                    Mode::Data,
                    "t",
                    "n",
                ),
                key: str_key(&key),
            };
            let printed = addr.to_string();
            assert!(!printed.contains(['\n', '\r']), "{printed:?}");
            assert_eq!(instance(&printed), addr, "{printed}");
        }
    }

    /// Spellings Terraform's HCL traversal parser accepts and normalises.
    #[test]
    fn accepts_what_terraform_accepts() {
        let cases: &[(&str, &str)] = &[
            // Blanks and line breaks may separate any two tokens.
            (
                " module . a [ 0 ] . aws_x . y [ \"k\" ] ",
                r#"module.a[0].aws_x.y["k"]"#,
            ),
            ("aws_x.y\r\n[0]\n", "aws_x.y[0]"),
            ("\taws_x\t.y", "aws_x.y"),
            // Comments are skipped like blanks.
            ("aws_x.y # a note", "aws_x.y"),
            ("aws_x.y // a note\n", "aws_x.y"),
            ("aws_x.y /* a\nnote */ [1]", "aws_x.y[1]"),
            // A byte-order mark at the start is dropped.
            ("\u{feff}aws_x.y", "aws_x.y"),
            // `resource.` is an optional prefix (Terraform 1.10+).
            ("resource.aws_x.y", "aws_x.y"),
            ("module.a.resource.aws_x.y[0]", "module.a.aws_x.y[0]"),
            // Number literals are decimal floats that must be whole.
            ("aws_x.y[007]", "aws_x.y[7]"),
            ("aws_x.y[1e3]", "aws_x.y[1000]"),
            ("aws_x.y[1.0]", "aws_x.y[1]"),
            ("aws_x.y[10e-1]", "aws_x.y[1]"),
            ("aws_x.y[1.e2]", "aws_x.y[100]"),
            ("module.a[2E+1].aws_x.y", "module.a[20].aws_x.y"),
            (
                "aws_x.y[9223372036854775807]",
                "aws_x.y[9223372036854775807]",
            ),
            // Escapes decode; printing re-escapes only what Terraform does.
            (r#"aws_x.y["\u00e9\U0001F680"]"#, r#"aws_x.y["é🚀"]"#),
            (r#"aws_x.y["\u00A0"]"#, r#"aws_x.y["\u00a0"]"#),
            ("aws_x.y[\"raw\ttab\"]", r#"aws_x.y["raw\ttab"]"#),
            (r#"aws_x.y["$$"]"#, r#"aws_x.y["$$"]"#),
            (r#"aws_x.y["$$$${"]"#, r#"aws_x.y["$$$${"]"#),
            // Identifiers are Unicode (ID_Start/ID_Continue) plus `-`.
            ("aws_x.café", "aws_x.café"),
            ("module.日本.aws_x.y", "module.日本.aws_x.y"),
            ("aws_x.e\u{301}-1", "aws_x.e\u{301}-1"),
            ("_x.y_-z", "_x.y_-z"),
            // Only the first word after the module path is special.
            ("data.data.x", "data.data.x"),
            ("data.count.x", "data.count.x"),
            // After `module.` any name is a module name.
            (
                "module.data.module.count.data.x.y",
                "module.data.module.count.data.x.y",
            ),
        ];
        for (input, printed) in cases {
            let t = target(input);
            assert_eq!(t.to_string(), *printed, "{input:?}");
            assert_eq!(target(printed), t, "{printed:?}");
        }
    }

    #[test]
    fn classifies_targets_like_parse_target() {
        assert_eq!(
            target("module.a"),
            Target::Module(ModulePath(vec![step("a", None)]))
        );
        assert_eq!(
            target("module.a[0].module.b"),
            Target::Module(ModulePath(vec![
                step("a", Some(InstanceKey::Int(0))),
                step("b", None)
            ]))
        );
        // No key means the whole resource, never its unkeyed instance.
        assert_eq!(
            target("aws_x.y"),
            Target::Resource(res(ModulePath::root(), Mode::Managed, "aws_x", "y"))
        );
        assert_eq!(
            target("aws_x.y[0]"),
            Target::Instance(InstanceAddr {
                resource: res(ModulePath::root(), Mode::Managed, "aws_x", "y"),
                key: Some(InstanceKey::Int(0)),
            })
        );
        // A keyed resource target is an instance, and an instance address
        // without key is the unkeyed instance.
        assert_eq!(instance("aws_x.y").key, None);
    }

    #[test]
    fn module_path_parse_matches_state_file_module_field() {
        assert_eq!(ModulePath::parse("").unwrap(), ModulePath::root());
        assert_eq!(ModulePath::root().to_string(), "");
        for s in [
            r#"module.a["k"]"#,
            "module.a.module.b[0]",
            r#"module.x["a.b"].module.y"#,
        ] {
            let p: ModulePath = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
        }
        let e = ModulePath::parse("aws_x.y").unwrap_err();
        assert_eq!(
            e.message,
            "a module path must start with \"module.\", found name \"aws_x\""
        );
        assert_eq!(e.offset, 0);
        let e = ModulePath::parse("module.a.aws_x.y").unwrap_err();
        assert_eq!(e.message, "unexpected name \"aws_x\" after the module path");
        assert_eq!(e.offset, 8);
        // Terraform parses any non-empty field, and blanks are not an address.
        assert_eq!(
            ModulePath::parse("  ").unwrap_err().message,
            "the address is empty"
        );
    }

    #[test]
    fn specific_parsers_reject_the_wrong_kind() {
        let e = InstanceAddr::parse("  module.a").unwrap_err();
        assert_eq!(
            e.message,
            "expected a resource instance address, but this is a module path"
        );
        assert_eq!(e.offset, 2);
        let e = ResourceAddr::parse("aws_x.y [0]").unwrap_err();
        assert_eq!(
            e.message,
            "expected a resource address, but this names one instance of it"
        );
        assert_eq!(e.offset, 8);
        let e = ResourceAddr::parse("module.a").unwrap_err();
        assert_eq!(
            e.message,
            "expected a resource address, but this is a module path"
        );
        let e = ObjectAddr::parse("module.a (deposed object 01234567)").unwrap_err();
        assert_eq!(
            e.message,
            "a deposed object needs a resource instance address, but this is a module path"
        );
        let e = InstanceAddr::parse("aws_x.y (deposed object 01234567)").unwrap_err();
        assert_eq!(
            e.message,
            "expected \".\", \"[\" or the end of the address, found \"(\""
        );
        assert_eq!(e.offset, 8);
    }

    #[test]
    fn rejects_invalid_addresses_with_a_clear_error() {
        let cases: &[(&str, &str, usize)] = &[
            ("", "the address is empty", 0),
            ("aws_x.y[-1]", "an index cannot be negative", 8),
            (
                "aws_x.y[1.5]",
                "resource instance key 1.5 is not a whole number",
                8,
            ),
            (
                "aws_x.y[15e-1]",
                "resource instance key 15e-1 is not a whole number",
                8,
            ),
            (
                "aws_x.y[9223372036854775808]",
                "resource instance key 9223372036854775808 is too large; the largest allowed is 9223372036854775807",
                8,
            ),
            (
                "module.a[0.5].x.y",
                "module key 0.5 is not a whole number",
                9,
            ),
            (
                "aws_x.y[1..2]",
                "resource instance key 1..2 is not a valid number",
                8,
            ),
            (
                "aws_x.y[0x10]",
                "expected \"]\" to close the index, found name \"x10\"",
                9,
            ),
            (
                "aws_x.y[1",
                "expected \"]\" to close the index, found end of input",
                9,
            ),
            ("aws_x.y[\"abc", "unterminated quoted string", 8),
            ("aws_x.y[\"abc\\", "unterminated quoted string", 12),
            (
                "aws_x.y[\"a\"] extra",
                "expected \".\", \"[\" or the end of the address, found name \"extra\"",
                13,
            ),
            (
                "aws_x.y!",
                "expected \".\", \"[\" or the end of the address, found \"!\"",
                7,
            ),
            (
                "aws_x.y[\"${var.x}\"]",
                "template interpolation \"${\" is not allowed in an address; write \"$${\" for a literal \"${\"",
                9,
            ),
            (
                "aws_x.y[\"a%{if x}\"]",
                "template directive \"%{\" is not allowed in an address; write \"%%{\" for a literal \"%{\"",
                10,
            ),
            (
                "aws_x.y[\"$${x}${y}\"]",
                "template interpolation \"${\" is not allowed in an address; write \"$${\" for a literal \"${\"",
                14,
            ),
            (
                "aws_x.y[\"\\q\"]",
                "unknown escape sequence \"\\q\" in quoted string",
                9,
            ),
            (
                "aws_x.y[\"\\u12\"]",
                "\"\\u\" must be followed by exactly 4 hexadecimal digits",
                9,
            ),
            (
                "aws_x.y[\"\\U0001F60\"]",
                "\"\\U\" must be followed by exactly 8 hexadecimal digits",
                9,
            ),
            (
                "aws_x.y[\"\\uD800\"]",
                "\"\\uD800\" is not a Unicode scalar value",
                9,
            ),
            (
                "aws_x.y[\"\\U00110000\"]",
                "\"\\U00110000\" is not a Unicode scalar value",
                9,
            ),
            (
                "aws_x.y[\"a\nb\"]",
                "a quoted string cannot contain a line break; write \\n or \\r instead",
                10,
            ),
            (
                "aws_x.y[\"a\\\nb\"]",
                "a quoted string cannot contain a line break; write \\n or \\r instead",
                10,
            ),
            (
                "aws_x.y['a']",
                "an index must be a whole number or a quoted string, found \"'\"",
                8,
            ),
            (
                "aws_x.y[true]",
                "an index must be a whole number or a quoted string, found name \"true\"",
                8,
            ),
            (
                "aws_x.y[]",
                "an index must be a whole number or a quoted string, found \"]\"",
                8,
            ),
            (
                "aws_x.y[*]",
                "the wildcard \"[*]\" is not allowed in an address",
                8,
            ),
            (
                "aws_x.*",
                "the wildcard \".*\" is not allowed in an address",
                6,
            ),
            (
                "aws_x.y[0][1]",
                "unexpected index [1] after the resource instance address",
                10,
            ),
            (
                "aws_x.y[0].z",
                "unexpected name \"z\" after the resource instance address",
                10,
            ),
            (
                "aws_x.y.z",
                "a resource instance key must be given in square brackets, found name \"z\"",
                7,
            ),
            (
                "aws_x",
                "a resource address needs a resource type and a resource name",
                0,
            ),
            (
                "data.aws_x",
                "a resource address needs a resource type and a resource name",
                4,
            ),
            (
                "module.a.data",
                "a resource address needs a resource type and a resource name",
                13,
            ),
            (
                "aws_x[\"a\"]",
                "expected a resource name, found a string index",
                5,
            ),
            (
                "data[\"a\"].b",
                "expected a data source type, found a string index",
                4,
            ),
            ("aws_x..y", "expected a name after \".\", found \".\"", 6),
            ("aws_x.0", "expected a name after \".\", found number 0", 6),
            (
                "aws_x.y.",
                "expected a name after \".\", found end of input",
                8,
            ),
            (
                "0abc.x",
                "an address must start with a name, found number 0",
                0,
            ),
            ("-x.y", "an address must start with a name, found \"-\"", 0),
            ("[0]", "an address must start with a name, found \"[\"", 0),
            (
                "count.x",
                "\"count\" is a reserved word and cannot start a resource address; if it is a resource type, write \"resource.count\"",
                0,
            ),
            (
                "module.a.var.x",
                "\"var\" is a reserved word and cannot start a resource address; if it is a resource type, write \"resource.var\"",
                8,
            ),
            (
                "ephemeral.x.y",
                "ephemeral resources are never stored in state, so they cannot be addressed here",
                0,
            ),
            (
                "list.x.y",
                "list resources are never stored in state, so they cannot be addressed here",
                0,
            ),
            (
                "module",
                "\"module\" must be followed by \".\" and a module name",
                0,
            ),
            (
                "module.a.module",
                "\"module\" must be followed by \".\" and a module name",
                8,
            ),
            (
                "module[\"a\"]",
                "\"module\" must be followed by \".\" and a module name, found a string index",
                6,
            ),
            (
                "module.a[0][1].x.y",
                "a module instance key must be followed by \".\" and a name",
                11,
            ),
            ("aws_x.y /* open", "unterminated /* comment", 8),
            (
                "aws_x.y\r[0]",
                "expected \".\", \"[\" or the end of the address, found \"\\r\"",
                7,
            ),
            (
                "aws_x.y\u{a0}",
                "expected \".\", \"[\" or the end of the address, found \"\\u{a0}\"",
                7,
            ),
            (
                "aws_x.y²",
                "expected \".\", \"[\" or the end of the address, found \"²\"",
                7,
            ),
        ];
        for (input, message, offset) in cases {
            let e = target_err(input);
            assert_eq!(
                (e.message.as_str(), e.offset),
                (*message, *offset),
                "{input:?}"
            );
        }
    }

    #[test]
    fn rejects_bad_deposed_suffixes() {
        let cases: &[(&str, &str, usize)] = &[
            (
                "aws_x.y (deposed object 1234)",
                "a deposed key is eight lowercase hexadecimal digits, found \"1234\"",
                24,
            ),
            (
                "aws_x.y (deposed object DEADBEEF)",
                "a deposed key is eight lowercase hexadecimal digits, found \"DEADBEEF\"",
                24,
            ),
            (
                "aws_x.y (deposed object 0123abcd",
                "expected \")\" after the deposed key",
                32,
            ),
            (
                "aws_x.y (deposed object 0123abcd) x",
                "unexpected text after the deposed object key",
                34,
            ),
            (
                "aws_x.y (deposed 0123abcd)",
                "expected \"(deposed object KEY)\" after the instance address",
                8,
            ),
            (
                "aws_x.y (deposedobject 0123abcd)",
                "expected \"(deposed object KEY)\" after the instance address",
                8,
            ),
            (
                "aws_x.y (tainted)",
                "expected \"(deposed object KEY)\" after the instance address",
                8,
            ),
        ];
        for (input, message, offset) in cases {
            let e = ObjectAddr::parse(input).unwrap_err();
            assert_eq!(
                (e.message.as_str(), e.offset),
                (*message, *offset),
                "{input:?}"
            );
        }
    }

    #[test]
    fn error_display_is_one_line_with_the_offset() {
        let e = target_err("aws_x.y[1.5]");
        assert_eq!(
            e.to_string(),
            "invalid address: resource instance key 1.5 is not a whole number (at byte 8)"
        );
        let e = target_err("aws_x.y\n!");
        assert_eq!(
            e.to_string(),
            "invalid address: expected \".\", \"[\" or the end of the address, found \"!\" (at byte 8)"
        );
        let e = target_err("aws_x.y\n\u{1}");
        assert!(!e.to_string().contains(['\n', '\u{1}']), "{e}");
    }

    /// Terraform prints a managed resource whose type is a keyword without
    /// the `resource.` prefix it needs to be parsed again; we print the same.
    #[test]
    fn keyword_type_names_need_the_resource_prefix() {
        let t = target("resource.count.x");
        assert_eq!(
            t,
            Target::Resource(res(ModulePath::root(), Mode::Managed, "count", "x"))
        );
        assert_eq!(t.to_string(), "count.x");
        let t = target("resource.data.x");
        assert_eq!(t.to_string(), "data.x");
        assert!(Target::parse("data.x").is_err());
    }

    /// Expected order: `terraform state list` sorts with
    /// `AbsResourceInstance.Less` (command/state_meta.go), i.e.
    /// `ModuleInstance.Less` (module_instance.go: shorter path first, then
    /// per step name then key), then `Resource.Less` (resource.go: data before
    /// managed, then type, then name), then `InstanceKeyLess`
    /// (instance_key.go: no key, then ints numerically, then strings
    /// byte-wise).
    #[test]
    fn sorts_like_terraform_state_list() {
        let expected = [
            "data.aws_caller_identity.current",
            "data.aws_caller_identity.current[0]",
            "aws_instance.a",
            "aws_instance.b[0]",
            "aws_instance.b[1]",
            "aws_instance.b[2]",
            "aws_instance.b[10]",
            r#"aws_instance.b["0"]"#,
            r#"aws_instance.c["B"]"#,
            r#"aws_instance.c["a"]"#,
            r#"aws_instance.c["a0"]"#,
            r#"aws_instance.c["b"]"#,
            r#"aws_instance.c["é"]"#,
            "aws_instance_x.a",
            "aws_s3_bucket.logs",
            "module.a.data.z.z",
            "module.a.aws_x.y",
            "module.a[0].aws_x.y",
            "module.a[1].aws_x.y",
            "module.a[10].aws_x.y",
            r#"module.a["k"].aws_x.y"#,
            "module.a-b.aws_x.y",
            "module.a_b.aws_x.y",
            "module.ab.aws_x.y",
            "module.z.aws_x.y",
            "module.a.module.z.aws_x.y",
            "module.a[0].module.a.aws_x.y",
            "module.b.module.a.aws_x.y",
            "module.a.module.a.module.a.aws_x.y",
        ];
        let mut addrs: Vec<InstanceAddr> = expected.iter().map(|s| instance(s)).collect();
        addrs.reverse();
        addrs.rotate_left(7);
        addrs.sort();
        let printed: Vec<String> = addrs.iter().map(ToString::to_string).collect();
        assert_eq!(printed, expected);
    }

    #[test]
    fn orders_pinned_pairwise() {
        let lt = |a: &str, b: &str| {
            assert!(instance(a) < instance(b), "{a} < {b}");
            assert!(instance(b) > instance(a), "{b} > {a}");
        };
        // module_instance.go ModuleInstance.Less: length beats names, so the
        // root module comes first and `module.z` precedes `module.a.module.b`.
        lt("zzz.zzz", "module.a.aaa.aaa");
        lt("module.z.aws_x.a", "module.a.module.b.aws_x.a");
        // ...and it is compared before the resource, so mode does not matter
        // across modules.
        lt("aws_x.a", "module.a.data.x.y");
        // resource.go Resource.Less: data sorts before managed in one module,
        // regardless of type and name.
        lt("data.zzz.zzz", "aaa.aaa");
        lt("module.m.data.z.z", "module.m.a.a");
        // Then type before name, byte-wise.
        lt("aws_a.z", "aws_b.a");
        lt("aws_a.a", "aws_a.b");
        lt("aws_x.Z", "aws_x.a");
        // instance_key.go InstanceKeyLess: no key < ints < strings.
        lt("aws_x.y", "aws_x.y[0]");
        lt("aws_x.y[2]", "aws_x.y[10]");
        lt("aws_x.y[99]", r#"aws_x.y["0"]"#);
        lt(r#"aws_x.y["10"]"#, r#"aws_x.y["2"]"#);
        lt(r#"aws_x.y[""]"#, r#"aws_x.y["a"]"#);
        lt(r#"aws_x.y["z"]"#, r#"aws_x.y["é"]"#);
        // Module steps compare name before key.
        lt(r#"module.a["z"].x.y"#, "module.b.x.y");
        lt("module.a.x.y", "module.a[0].x.y");

        let m = |s: &str| ModulePath::parse(s).unwrap();
        assert!(m("") < m("module.z"));
        assert!(m("module.z") < m("module.a.module.a"));
        assert!(InstanceKey::Int(i64::MAX) < InstanceKey::Str(String::new()));
        assert!(Mode::Data < Mode::Managed);

        // resource.go AbsResourceInstanceObject.Less: the current object
        // before deposed ones, deposed keys byte-wise.
        let o = |s: &str| ObjectAddr::parse(s).unwrap();
        assert!(o("aws_x.y") < o("aws_x.y (deposed object 00000000)"));
        assert!(o("aws_x.y (deposed object 00000000)") < o("aws_x.y (deposed object 0000000a)"));
        assert!(o("aws_x.y (deposed object ffffffff)") < o("aws_x.y[0]"));
    }

    /// Expectations follow command/state_meta.go lookupResourceInstanceAddr.
    #[test]
    fn module_targets_match_like_state_list() {
        let matches = |t: &str, i: &str| target(t).matches(&instance(i));
        // The module itself and everything below it.
        assert!(matches("module.a", "module.a.x.y"));
        assert!(matches("module.a", "module.a.module.b.module.c.x.y[0]"));
        // No key covers every instance of the call (IsAncestor and
        // TargetContains both treat a missing key that way).
        assert!(matches("module.a", "module.a[0].x.y"));
        assert!(matches("module.a", r#"module.a["k"].module.b.x.y"#));
        // Names are compared whole, and only as a prefix of the path.
        assert!(!matches("module.a", "module.ab.x.y"));
        assert!(!matches("module.a", "x.y"));
        assert!(!matches("module.a", "module.b.module.a.x.y"));
        // A key selects just that instance.
        assert!(matches("module.a[0]", "module.a[0].x.y"));
        assert!(matches("module.a[0]", "module.a[0].module.c.x.y"));
        assert!(!matches("module.a[0]", "module.a[1].x.y"));
        assert!(!matches("module.a[0]", r#"module.a["0"].x.y"#));
        assert!(!matches("module.a[0]", "module.a.x.y"));
        // The asymmetry: for a module at the target's own depth only the last
        // step may omit its key (TargetContains); deeper modules go through
        // IsAncestor, where every step may.
        assert!(matches("module.a.module.b", "module.a.module.b.x.y"));
        assert!(matches("module.a.module.b", "module.a.module.b[0].x.y"));
        assert!(matches(
            "module.a.module.b",
            "module.a[0].module.b.module.c.x.y"
        ));
        assert!(!matches("module.a.module.b", "module.a[0].module.b.x.y"));
        // A root "target" (not parseable, only constructible) covers everything.
        assert!(Target::Module(ModulePath::root()).matches(&instance("module.a[0].x.y")));
    }

    #[test]
    fn resource_and_instance_targets_match_exactly() {
        let matches = |t: &str, i: &str| target(t).matches(&instance(i));
        assert!(matches("aws_x.y", "aws_x.y"));
        assert!(matches("aws_x.y", "aws_x.y[0]"));
        assert!(matches("aws_x.y", r#"aws_x.y["k"]"#));
        assert!(!matches("aws_x.y", "aws_x.yy"));
        assert!(!matches("aws_x.y", "data.aws_x.y"));
        assert!(!matches("aws_x.y", "module.a.aws_x.y"));
        // state.Resource looks the module up by its exact instance address.
        assert!(!matches("module.a.aws_x.y", "module.a[0].aws_x.y"));
        assert!(matches("module.a[0].aws_x.y", "module.a[0].aws_x.y[3]"));
        assert!(matches("aws_x.y[0]", "aws_x.y[0]"));
        assert!(!matches("aws_x.y[0]", "aws_x.y"));
        assert!(!matches("aws_x.y[0]", r#"aws_x.y["0"]"#));
        assert!(!matches("aws_x.y[0]", "aws_x.y[1]"));
    }

    #[test]
    fn character_tables_are_sorted_and_disjoint() {
        for table in [ID_START, ID_CONTINUE_EXTRA, NOT_PRINTABLE] {
            for pair in table.windows(2) {
                assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:x?}");
            }
        }
        for &(lo, hi) in ID_CONTINUE_EXTRA {
            for c in (lo..=hi).filter_map(char::from_u32) {
                assert!(!in_table(ID_START, c), "{c:?}");
            }
        }
    }

    #[test]
    fn character_classes_spot_checks() {
        for c in ['a', 'Z', 'é', '日', 'ß', 'Ω'] {
            assert!(is_id_start(c), "{c:?}");
        }
        for c in ['_', '-', '0', '\u{301}', '²', '$', '🚀'] {
            assert!(!is_id_start(c), "{c:?}");
        }
        for c in ['0', '_', '\u{301}', '\u{663}', 'é'] {
            assert!(is_id_continue(c), "{c:?}");
        }
        for c in ['-', '²', '.', ' ', '🚀'] {
            assert!(!is_id_continue(c), "{c:?}");
        }
        for c in [' ', '~', 'é', '日', '🚀', '\u{301}', '\u{1fae8}'] {
            assert!(is_go_printable(c), "{c:?}");
        }
        for c in [
            '\u{0}',
            '\u{7f}',
            '\u{85}',
            '\u{a0}',
            '\u{ad}',
            '\u{200b}',
            '\u{feff}',
            '\u{fffe}',
            '\u{1fae9}',
        ] {
            assert!(!is_go_printable(c), "{c:?}");
        }
    }
}
