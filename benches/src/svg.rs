//! The SVG form of a plot: a [`Canvas`] that writes SVG elements by hand (no crate needed).

use std::fmt::Write;

use crate::plot::{Anchor, Canvas, Stroke, TextStyle};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn stroke_attrs(s: Stroke<'_>) -> String {
    let dash = if s.dashed {
        r#" stroke-dasharray="5,3""#
    } else {
        ""
    };
    let width = if s.width == 1.0 {
        String::new()
    } else {
        format!(r#" stroke-width="{}""#, s.width)
    };
    format!(r#"stroke="{}"{width}{dash}"#, s.colour)
}

/// An SVG document being drawn.
#[derive(Debug)]
pub struct SvgCanvas {
    out: String,
}

impl SvgCanvas {
    /// An empty `w` × `h` document (sans-serif, 12-unit text unless a text says otherwise).
    pub fn new(w: f64, h: f64) -> SvgCanvas {
        SvgCanvas {
            out: format!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">
"#
            ),
        }
    }

    /// The finished document.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

impl Canvas for SvgCanvas {
    fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: Stroke<'_>) {
        let _ = writeln!(
            self.out,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" {}/>"#,
            stroke_attrs(stroke)
        );
    }

    fn polyline(&mut self, points: &[(f64, f64)], stroke: Stroke<'_>) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            self.out,
            r#"<polyline fill="none" {} points="{}"/>"#,
            stroke_attrs(stroke),
            pts.join(" ")
        );
    }

    fn rect(
        &mut self,
        (x, y): (f64, f64),
        (w, h): (f64, f64),
        fill: Option<&str>,
        outline: Option<&str>,
        tip: Option<&str>,
    ) {
        let stroke = outline.map_or(String::new(), |c| format!(r#" stroke="{c}""#));
        let attrs = format!(
            r#"x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{}"{stroke}"#,
            fill.unwrap_or("none")
        );
        let _ = match tip {
            Some(t) => writeln!(
                self.out,
                r#"<rect {attrs}><title>{}</title></rect>"#,
                esc(t)
            ),
            None => writeln!(self.out, r#"<rect {attrs}/>"#),
        };
    }

    fn text(&mut self, (x, y): (f64, f64), text: &str, style: TextStyle) {
        let anchor = match style.anchor {
            Anchor::Start => "",
            Anchor::Middle => r#" text-anchor="middle""#,
            Anchor::End => r#" text-anchor="end""#,
        };
        let size = if style.size == 12.0 {
            String::new()
        } else {
            format!(r#" font-size="{}""#, style.size)
        };
        let turn = if style.vertical {
            format!(r#" transform="rotate(-90 {x:.1} {y:.1})""#)
        } else {
            String::new()
        };
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.1}" y="{y:.1}"{anchor}{size}{turn}>{}</text>"#,
            esc(text)
        );
    }
}
