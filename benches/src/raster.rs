//! PNG copies of the SVG plots, rendered from the SVG itself (resvg) so both always show the
//! same figure. Text uses DejaVu Sans embedded in the binary (the `dejavu` crate): no system
//! fonts are needed, so a fresh machine with only the Rust toolchain gets the same PNG.

use resvg::{tiny_skia, usvg};

use crate::BenchError;

/// Pixels per SVG unit (the plots are 760 × 440 units; 2× keeps 12-unit text legible).
const SCALE: f32 = 2.0;

/// Renders `svg` to PNG bytes.
pub fn png(svg: &str) -> Result<Vec<u8>, BenchError> {
    let mut opt = usvg::Options::default();
    let fonts = opt.fontdb_mut();
    fonts.load_font_data(dejavu::sans::regular().to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    let tree = usvg::Tree::from_str(svg, &opt)
        .map_err(|e| BenchError::Protocol(format!("plot SVG does not parse: {e}")))?;
    let size = tree.size().to_int_size().scale_by(SCALE).ok_or_else(|| {
        BenchError::Protocol(format!("plot size {:?} cannot be rendered", tree.size()))
    })?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| BenchError::Protocol(format!("no {size:?} pixmap")))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| BenchError::Protocol(format!("encode PNG: {e}")))
}
