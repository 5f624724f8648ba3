//! serde's `rename_all` rules, applied to field and variant names.

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    /// The rule serde names `name`; `None` for a name serde would reject
    /// (serde reports that one itself).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// The wire name of the field `field` (a snake_case Rust name).
    pub fn apply(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::with_capacity(field.len());
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(ch);
                    }
                }
                out
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// The wire name of the variant `variant` (a PascalCase Rust name).
    pub fn apply_to_variant(self, variant: &str) -> String {
        let snake = || {
            let mut out = String::with_capacity(variant.len() + 4);
            for (i, ch) in variant.char_indices() {
                if i > 0 && ch.is_uppercase() {
                    out.push('_');
                }
                out.push(ch.to_ascii_lowercase());
            }
            out
        };
        match self {
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Snake => snake(),
            RenameRule::ScreamingSnake => snake().to_ascii_uppercase(),
            RenameRule::Kebab => snake().replace('_', "-"),
            RenameRule::ScreamingKebab => snake().to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn rules_match_serde() {
        assert_eq!(Camel.apply("user_id"), "userId");
        assert_eq!(Camel.apply("id"), "id");
        assert_eq!(Pascal.apply("within_seven_days"), "WithinSevenDays");
        assert_eq!(ScreamingSnake.apply("next_page"), "NEXT_PAGE");
        assert_eq!(Kebab.apply("next_page"), "next-page");
        assert_eq!(ScreamingKebab.apply("next_page"), "NEXT-PAGE");
        assert_eq!(Lower.apply("title"), "title");
    }

    #[test]
    fn variant_rules_match_serde() {
        assert_eq!(Lower.apply_to_variant("BlogPost"), "blogpost");
        assert_eq!(Snake.apply_to_variant("BlogPost"), "blog_post");
        assert_eq!(Camel.apply_to_variant("BlogPost"), "blogPost");
        assert_eq!(ScreamingKebab.apply_to_variant("BlogPost"), "BLOG-POST");
        assert_eq!(Pascal.apply_to_variant("BlogPost"), "BlogPost");
    }
}
