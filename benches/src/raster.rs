//! The PNG form of a plot: a [`Canvas`] that paints into an RGB bitmap with plotters' bitmap
//! backend, then the `png` crate encodes it. Text is drawn by ab_glyph with DejaVu Sans, which
//! the `dejavu` crate embeds in the binary: no system font is needed, so a fresh machine with
//! only the Rust toolchain produces the same PNG.
//!
//! Why not render the SVG with resvg: measured here, a clean build of resvg with text took 44 s
//! (79 s CPU), plotters' bitmap backend with ab_glyph 9 s (15 s CPU).

use std::sync::OnceLock;

use plotters::prelude::{
    BitMapBackend, DrawingBackend, FontDesc, FontFamily, FontStyle, FontTransform, IntoFont,
    RGBColor, ShapeStyle,
};
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::BenchError;
use crate::plot::{Anchor, Canvas, H, Plot, Stroke, TextStyle, W};

/// Pixels per canvas unit (the plots are 760 × 440 units; 2× keeps 10-unit text legible).
const SCALE: f64 = 2.0;

/// Registers the embedded font as plotters' sans-serif, once per process.
fn font() -> Result<(), BenchError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = REGISTERED.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_ok()
    });
    if *ok {
        Ok(())
    } else {
        Err(BenchError::Protocol(
            "the embedded DejaVu Sans font does not load".into(),
        ))
    }
}

fn colour(hex: &str) -> RGBColor {
    let byte = |i: usize| {
        hex.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0)
    };
    RGBColor(byte(1), byte(3), byte(5))
}

fn px((x, y): (f64, f64)) -> (i32, i32) {
    ((x * SCALE).round() as i32, (y * SCALE).round() as i32)
}

/// Splits a polyline into the dashes of a 5-on, 3-off pattern (canvas units).
fn dashes(points: &[(f64, f64)]) -> Vec<[(f64, f64); 2]> {
    const ON: f64 = 5.0;
    const PERIOD: f64 = 8.0;
    let mut out = Vec::new();
    let mut phase = 0.0; // distance into the current period
    for w in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        let len = (x1 - x0).hypot(y1 - y0);
        let at = |d: f64| {
            let t = if len > 0.0 { d / len } else { 0.0 };
            (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
        };
        let mut d = 0.0;
        while d < len {
            let (edge, on) = if phase < ON {
                (ON - phase, true)
            } else {
                (PERIOD - phase, false)
            };
            let step = edge.min(len - d);
            if on {
                out.push([at(d), at(d + step)]);
            }
            d += step;
            phase = (phase + step) % PERIOD;
        }
    }
    out
}

/// A bitmap being painted; the first drawing error is kept for [`png`].
struct BitmapCanvas<'a> {
    back: BitMapBackend<'a>,
    error: Option<String>,
}

impl BitmapCanvas<'_> {
    fn keep<T, E: std::fmt::Debug>(&mut self, r: Result<T, E>) {
        if let (Err(e), None) = (r, &self.error) {
            self.error = Some(format!("{e:?}"));
        }
    }

    fn segment(&mut self, a: (f64, f64), b: (f64, f64), style: &ShapeStyle) {
        let r = self.back.draw_line(px(a), px(b), style);
        self.keep(r);
    }
}

fn shape(s: Stroke<'_>) -> ShapeStyle {
    ShapeStyle {
        color: colour(s.colour).into(),
        filled: false,
        stroke_width: (s.width * SCALE).round().max(1.0) as u32,
    }
}

impl Canvas for BitmapCanvas<'_> {
    fn line(&mut self, from: (f64, f64), to: (f64, f64), stroke: Stroke<'_>) {
        self.polyline(&[from, to], stroke);
    }

    fn polyline(&mut self, points: &[(f64, f64)], stroke: Stroke<'_>) {
        let style = shape(stroke);
        if stroke.dashed {
            for [a, b] in dashes(points) {
                self.segment(a, b, &style);
            }
        } else {
            let r = self.back.draw_path(points.iter().map(|p| px(*p)), &style);
            self.keep(r);
        }
    }

    fn rect(
        &mut self,
        (x, y): (f64, f64),
        (w, h): (f64, f64),
        fill: Option<&str>,
        outline: Option<&str>,
        _tip: Option<&str>,
    ) {
        if let Some(f) = fill {
            let style = ShapeStyle {
                color: colour(f).into(),
                filled: true,
                stroke_width: 1,
            };
            let r = self
                .back
                .draw_rect(px((x, y)), px((x + w, y + h)), &style, true);
            self.keep(r);
        }
        if let Some(o) = outline {
            let corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)];
            self.polyline(
                &corners,
                Stroke {
                    colour: o,
                    width: 1.0,
                    dashed: false,
                },
            );
        }
    }

    fn text(&mut self, at: (f64, f64), text: &str, style: TextStyle) {
        let mut font: FontDesc<'_> = (FontFamily::SansSerif, style.size * SCALE).into_font();
        if style.vertical {
            font = font.transform(FontTransform::Rotate270);
        }
        let h = match style.anchor {
            Anchor::Start => HPos::Left,
            Anchor::Middle => HPos::Center,
            Anchor::End => HPos::Right,
        };
        // The canvas anchors text at its baseline. plotters' ab_glyph text, anchored at its
        // top, has its baseline half the font size further down (along the glyphs' "down",
        // which a vertical text turns into +x).
        let (x, y) = at;
        let at = if style.vertical {
            (x - style.size / 2.0, y)
        } else {
            (x, y - style.size / 2.0)
        };
        let t = plotters::style::TextStyle::from(font)
            .color(&RGBColor(0, 0, 0))
            .pos(Pos::new(h, VPos::Top));
        let r = self.back.draw_text(text, &t, px(at));
        self.keep(r);
    }
}

/// Paints `plot` and encodes it as PNG.
pub fn png(plot: &Plot) -> Result<Vec<u8>, BenchError> {
    font()?;
    let (w, h) = ((W * SCALE) as u32, (H * SCALE) as u32);
    let mut rgb = vec![255u8; w as usize * h as usize * 3];
    {
        let mut c = BitmapCanvas {
            back: BitMapBackend::with_buffer(&mut rgb, (w, h)),
            error: None,
        };
        plot.draw(&mut c);
        let r = c.back.present();
        c.keep(r);
        if let Some(e) = c.error {
            return Err(BenchError::Protocol(format!("paint the plot: {e}")));
        }
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .and_then(|mut wr| wr.write_image_data(&rgb))
        .map_err(|e| BenchError::Protocol(format!("encode PNG: {e}")))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::dashes;

    #[test]
    fn dashes_follow_the_pattern_across_corners() {
        // 16 units straight: on 0–5, off 5–8, on 8–13, off 13–16.
        let d = dashes(&[(0.0, 0.0), (16.0, 0.0)]);
        assert_eq!(d, vec![[(0.0, 0.0), (5.0, 0.0)], [(8.0, 0.0), (13.0, 0.0)]]);
        // A corner inside a dash splits it but keeps the phase.
        let d = dashes(&[(0.0, 0.0), (3.0, 0.0), (3.0, 10.0)]);
        assert_eq!(d[0], [(0.0, 0.0), (3.0, 0.0)]);
        assert_eq!(d[1], [(3.0, 0.0), (3.0, 2.0)]);
        assert_eq!(d[2], [(3.0, 5.0), (3.0, 10.0)]);
    }
}
