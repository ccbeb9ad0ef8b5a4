//! What a chat line may hold: plain text of at most [`MAX_LINE_CHARS`] characters, not
//! blank. Line breaks and tabs become spaces; other control characters, bidirectional
//! controls and invisible format characters (the set user names may not hold) are
//! removed, so a line can neither break a client's layout nor turn the text around it.
//! Markup is left as written: clients show lines as text.

use shared::protocol::MAX_LINE_CHARS;

use super::ChatError;

/// The line as stored, or why it is refused.
pub fn clean(text: &str) -> Result<String, ChatError> {
    // Read no further than a line could reach: a megabyte of text is refused as soon
    // as its first 4 * 140 characters are seen.
    let mut out = String::with_capacity(text.len().min(4 * MAX_LINE_CHARS));
    let mut seen = 0usize;
    for c in text.chars() {
        seen += 1;
        if seen > 4 * MAX_LINE_CHARS {
            return Err(too_long());
        }
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if crate::auth::is_unsafe_char(c) => {}
            c => out.push(c),
        }
    }
    let line = out
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if line.trim().is_empty() {
        return Err(ChatError::BadLine("a chat line cannot be blank".into()));
    }
    if line.chars().count() > MAX_LINE_CHARS {
        return Err(too_long());
    }
    Ok(line)
}

fn too_long() -> ChatError {
    ChatError::BadLine(format!(
        "a chat line holds at most {MAX_LINE_CHARS} characters"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cleaned_or_refused() {
        assert_eq!(clean("  hello   there ").unwrap(), "hello there");
        assert_eq!(clean("a\nb\r\nc\td").unwrap(), "a b c d");
        assert_eq!(clean("x\u{0000}y\u{0007}\u{001b}[31mz").unwrap(), "xy[31mz");
        assert_eq!(clean("ab\u{202E}cd\u{200B}").unwrap(), "abcd");
        assert_eq!(
            clean("<script>alert(1)</script>").unwrap(),
            "<script>alert(1)</script>"
        );
        assert_eq!(clean("Дамка бьёт!").unwrap(), "Дамка бьёт!");
        for blank in ["", "   ", "\n\t", "\u{200B}\u{FEFF}", "\u{0000}"] {
            assert!(
                matches!(clean(blank), Err(ChatError::BadLine(_))),
                "{blank:?}"
            );
        }
        assert!(clean(&"я".repeat(140)).is_ok());
        assert!(matches!(
            clean(&"я".repeat(141)),
            Err(ChatError::BadLine(_))
        ));
        assert!(matches!(
            clean(&"x".repeat(1 << 20)),
            Err(ChatError::BadLine(_))
        ));
    }
}
