//! A unified diff of two texts, line by line, for `edit_file`'s answer: the common start and end
//! are cut first, the middle is aligned by a longest common subsequence (bounded in size; past
//! the bound the middle is shown removed, then added). The diff stops at whole lines within a
//! byte cap (an answer's), and says whether it was cut.

/// Lines of context around a change.
const CONTEXT: usize = 3;
/// The largest middle (old lines × new lines) aligned line by line.
const MAX_CELLS: usize = 1 << 20;

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Same,
    Removed,
    Added,
}

/// The unified diff of `old` to `new`, both headers naming `name`, empty when they are equal;
/// at most `max` bytes of it, cut after a whole line, and whether it was cut.
pub(crate) fn unified(name: &str, old: &str, new: &str, max: usize) -> (String, bool) {
    let ops = align(&old.split_inclusive('\n').collect::<Vec<_>>(), &new.split_inclusive('\n').collect::<Vec<_>>());
    let mut out = String::new();
    let mut from = 0;
    while let Some(first) = (from..ops.len()).find(|&k| ops[k].0 != Op::Same) {
        let start = first.saturating_sub(CONTEXT).max(from);
        let mut last = first;
        let end = loop {
            while last < ops.len() && ops[last].0 != Op::Same {
                last += 1;
            }
            match (last..ops.len().min(last + 2 * CONTEXT + 1)).find(|&k| ops[k].0 != Op::Same) {
                Some(next) => last = next,
                None => break (last + CONTEXT).min(ops.len()),
            }
        };
        let at = out.len();
        if out.is_empty() {
            out.push_str(&format!("--- {name}\n+++ {name}\n"));
        }
        let count = |range: &[(Op, &str)], skip: Op| range.iter().filter(|(op, _)| *op != skip).count();
        let (old_before, new_before) = (count(&ops[..start], Op::Added), count(&ops[..start], Op::Removed));
        let (old_len, new_len) = (count(&ops[start..end], Op::Added), count(&ops[start..end], Op::Removed));
        let line = |before: usize, len: usize| if len == 0 { before } else { before + 1 };
        out.push_str(&format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            line(old_before, old_len),
            line(new_before, new_len)
        ));
        for (op, text) in &ops[start..end] {
            out.push(match op {
                Op::Same => ' ',
                Op::Removed => '-',
                Op::Added => '+',
            });
            out.push_str(text);
            if !text.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
            if out.len() > max {
                // Cut after the last whole line that fits (a hunk's header alone is dropped).
                // Bytes, not `str` slicing: the cap may fall inside a character.
                let fits = out.as_bytes()[..max].iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
                out.truncate(if fits > at { fits } else { at });
                return (out, true);
            }
        }
        from = end;
    }
    (out, false)
}

/// Every line of both, in order, each marked kept, removed or added.
fn align<'t>(old: &[&'t str], new: &[&'t str]) -> Vec<(Op, &'t str)> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (a, b) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    let mut ops: Vec<(Op, &str)> = old[..prefix].iter().map(|l| (Op::Same, *l)).collect();
    if a.len().saturating_mul(b.len()) > MAX_CELLS {
        ops.extend(a.iter().map(|l| (Op::Removed, *l)));
        ops.extend(b.iter().map(|l| (Op::Added, *l)));
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let width = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * width];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * width + j] = if a[i] == b[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                ops.push((Op::Same, a[i]));
                (i, j) = (i + 1, j + 1);
            } else if i < a.len() && (j == b.len() || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) {
                ops.push((Op::Removed, a[i]));
                i += 1;
            } else {
                ops.push((Op::Added, b[j]));
                j += 1;
            }
        }
    }
    ops.extend(old[old.len() - suffix..].iter().map(|l| (Op::Same, *l)));
    ops
}

#[cfg(test)]
mod tests {
    fn unified(name: &str, old: &str, new: &str) -> String {
        let (diff, cut) = super::unified(name, old, new, usize::MAX);
        assert!(!cut);
        diff
    }

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a", "x\ny\n", "x\ny\n"), "");
    }

    #[test]
    fn a_diff_is_cut_after_a_whole_line_within_the_cap() {
        let old: String = (0..100).map(|n| format!("{n}\n")).collect();
        let new = old.replace('1', "ünö");
        let whole = unified("f", &old, &new);
        let (cut, was_cut) = super::unified("f", &old, &new, 100);
        assert!(was_cut && cut.len() <= 100 && cut.ends_with('\n') && whole.starts_with(&cut), "{cut}");
        // Every cap, one inside a character included: never more, never a split line.
        for max in 0..whole.len() {
            let (cut, was_cut) = super::unified("f", &old, &new, max);
            assert!(was_cut && cut.len() <= max && whole.starts_with(&cut), "{max}: {cut}");
            assert!(cut.is_empty() || cut.ends_with('\n'), "{max}: {cut}");
        }
        assert_eq!(super::unified("f", &old, &new, whole.len()), (whole, false));
    }

    #[test]
    fn a_change_is_shown_with_three_lines_of_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            unified("f.txt", old, new),
            "--- f.txt\n+++ f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn far_apart_changes_are_two_hunks_and_near_ones_one() {
        let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let far = old.replace("2\n", "two\n").replace("\n19\n", "\nnineteen\n");
        let diff = unified("f", &old, &far);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.contains("@@ -1,5 +1,5 @@\n 1\n-2\n+two\n"), "{diff}");
        let near = old.replace("\n5\n", "\nfive\n").replace("\n10\n", "\nten\n");
        assert_eq!(unified("f", &old, &near).matches("@@ -").count(), 1);
    }

    #[test]
    fn insertions_deletions_and_missing_newlines() {
        assert_eq!(unified("f", "", "new\n"), "--- f\n+++ f\n@@ -0,0 +1,1 @@\n+new\n");
        assert_eq!(unified("f", "a\nb\n", "a\n"), "--- f\n+++ f\n@@ -1,2 +1,1 @@\n a\n-b\n");
        assert_eq!(
            unified("f", "a", "b"),
            "--- f\n+++ f\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
        );
    }
}
