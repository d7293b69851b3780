//! A provider schema's blocks, independent of the protobuf messages, and the object type a block
//! implies (the type of the values a provider sends for it), following Terraform's rules: nested
//! blocks become objects, lists, sets or maps of objects, except that a list or map of blocks with
//! a dynamic type inside becomes dynamic, since its elements need not share one type.

use std::collections::BTreeMap;

use super::ty::Type;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<NestedBlock>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub kind: AttributeKind,
    pub sensitive: bool,
    pub optional: bool,
    pub computed: bool,
    pub required: bool,
}

/// An attribute's type, or (protocol 6) its nested attributes.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeKind {
    Typed(Type),
    Nested(NestedAttributes),
}

#[derive(Debug, Clone, PartialEq)]
pub struct NestedAttributes {
    pub attributes: Vec<Attribute>,
    pub nesting: Nesting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    Single,
    Group,
    List,
    Set,
    Map,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NestedBlock {
    pub name: String,
    pub nesting: Nesting,
    pub block: Block,
    pub min_items: i64,
    pub max_items: i64,
}

impl Attribute {
    pub fn ty(&self) -> Type {
        match &self.kind {
            AttributeKind::Typed(ty) => ty.clone(),
            AttributeKind::Nested(nested) => nested.implied_type(),
        }
    }
}

impl NestedAttributes {
    pub fn object_type(&self) -> Type {
        Type::Object(
            self.attributes
                .iter()
                .map(|attribute| (attribute.name.clone(), attribute.ty()))
                .collect(),
        )
    }

    pub fn implied_type(&self) -> Type {
        let object = self.object_type();
        match self.nesting {
            Nesting::Single | Nesting::Group => object,
            Nesting::List => Type::List(Box::new(object)),
            Nesting::Set => Type::Set(Box::new(object)),
            Nesting::Map => Type::Map(Box::new(object)),
        }
    }
}

impl Block {
    pub fn implied_type(&self) -> Type {
        let mut fields: BTreeMap<String, Type> = self
            .attributes
            .iter()
            .map(|attribute| (attribute.name.clone(), attribute.ty()))
            .collect();
        for nested in &self.blocks {
            let object = nested.block.implied_type();
            let ty = match nested.nesting {
                Nesting::Single | Nesting::Group => object,
                Nesting::List | Nesting::Map if object.has_dynamic() => Type::Dynamic,
                Nesting::List => Type::List(Box::new(object)),
                Nesting::Set => Type::Set(Box::new(object)),
                Nesting::Map => Type::Map(Box::new(object)),
            };
            fields.insert(nested.name.clone(), ty);
        }
        Type::Object(fields)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(crate) fn attribute(name: &str, ty: Type, sensitive: bool) -> Attribute {
        Attribute {
            name: name.into(),
            kind: AttributeKind::Typed(ty),
            sensitive,
            optional: true,
            computed: false,
            required: false,
        }
    }

    /// An optional attribute of nested attributes (protocol 6), not itself sensitive.
    pub(crate) fn nested_attribute(
        name: &str,
        nesting: Nesting,
        attributes: Vec<Attribute>,
    ) -> Attribute {
        Attribute {
            name: name.into(),
            kind: AttributeKind::Nested(NestedAttributes {
                attributes,
                nesting,
            }),
            sensitive: false,
            optional: true,
            computed: false,
            required: false,
        }
    }

    pub(crate) fn nested(name: &str, nesting: Nesting, block: Block) -> NestedBlock {
        NestedBlock {
            name: name.into(),
            nesting,
            block,
            min_items: 0,
            max_items: 0,
        }
    }

    #[test]
    fn implies_objects_collections_and_dynamic_for_each_nesting() {
        let inner = Block {
            attributes: vec![attribute("size", Type::Number, false)],
            blocks: Vec::new(),
        };
        let dynamic_inner = Block {
            attributes: vec![attribute("any", Type::Dynamic, false)],
            blocks: Vec::new(),
        };
        let block = Block {
            attributes: vec![
                attribute("id", Type::String, false),
                nested_attribute(
                    "rules",
                    Nesting::Map,
                    vec![attribute("port", Type::Number, false)],
                ),
            ],
            blocks: vec![
                nested("one", Nesting::Single, inner.clone()),
                nested("group", Nesting::Group, inner.clone()),
                nested("list", Nesting::List, inner.clone()),
                nested("set", Nesting::Set, inner.clone()),
                nested("map", Nesting::Map, inner.clone()),
                nested("anything", Nesting::List, dynamic_inner),
            ],
        };
        let object = Type::Object([("size".to_owned(), Type::Number)].into());
        let Type::Object(fields) = block.implied_type() else {
            panic!()
        };
        assert_eq!(fields["id"], Type::String);
        assert_eq!(
            fields["rules"],
            Type::Map(Box::new(Type::Object(
                [("port".to_owned(), Type::Number)].into()
            )))
        );
        assert_eq!(fields["one"], object);
        assert_eq!(fields["group"], object);
        assert_eq!(fields["list"], Type::List(Box::new(object.clone())));
        assert_eq!(fields["set"], Type::Set(Box::new(object.clone())));
        assert_eq!(fields["map"], Type::Map(Box::new(object)));
        assert_eq!(fields["anything"], Type::Dynamic);
    }
}
