//! The plots (no plotting crate for the layout): a latency CDF (logarithmic time axis, "nines"
//! quantile axis) and grouped bars (throughput, grants/s). A [`Plot`] says what a figure shows;
//! its layout is drawn once, onto a [`Canvas`], which [`crate::svg`] writes as SVG and
//! [`crate::raster`] paints into a PNG, so both files always show the same figure.

use crate::BenchError;

/// Width of a plot, in canvas units.
pub const W: f64 = 760.0;
/// Height of a plot, in canvas units.
pub const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 220.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// How a line is drawn.
#[derive(Clone, Copy, Debug)]
pub struct Stroke<'a> {
    /// `#rrggbb`.
    pub colour: &'a str,
    /// Width in canvas units.
    pub width: f64,
    /// Dashed (the raw UDP baseline's lines)?
    pub dashed: bool,
}

/// Where a text's anchor point is, horizontally; the anchor's y is the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at the point.
    Start,
    /// The text is centred on the point.
    Middle,
    /// The text ends at the point.
    End,
}

/// How a text is drawn.
#[derive(Clone, Copy, Debug)]
pub struct TextStyle {
    /// Font size in canvas units.
    pub size: f64,
    /// Horizontal anchor.
    pub anchor: Anchor,
    /// Turned 90° counter-clockwise (a vertical axis title)?
    pub vertical: bool,
}

impl TextStyle {
    const fn new(size: f64, anchor: Anchor) -> TextStyle {
        TextStyle {
            size,
            anchor,
            vertical: false,
        }
    }
}

/// What the layout draws on: a W × H surface, y pointing down, sans-serif text.
pub trait Canvas {
    /// A straight line.
    fn line(&mut self, from: (f64, f64), to: (f64, f64), stroke: Stroke<'_>);
    /// An open polyline.
    fn polyline(&mut self, points: &[(f64, f64)], stroke: Stroke<'_>);
    /// A rectangle at (x, y) of size (w, h), filled and/or outlined; `tip` is a hover text
    /// where the format has one.
    fn rect(
        &mut self,
        at: (f64, f64),
        size: (f64, f64),
        fill: Option<&str>,
        outline: Option<&str>,
        tip: Option<&str>,
    );
    /// A text whose anchor point is `at`.
    fn text(&mut self, at: (f64, f64), text: &str, style: TextStyle);
}

/// One figure of a report.
#[derive(Clone, Debug)]
pub enum Plot {
    /// Latency CDFs: (label, points (quantile, µs)) per series.
    Cdf {
        /// Title.
        title: String,
        /// The series.
        series: Vec<(String, Vec<(f64, f64)>)>,
    },
    /// Grouped bars: one group per configuration, one bar per series (e.g. hlamesh, raw-udp).
    Bars {
        /// Title.
        title: String,
        /// Unit of the values (the y axis title).
        unit: String,
        /// (group label, (series name, value) per bar).
        groups: Vec<(String, Vec<(String, f64)>)>,
    },
}

const NORMAL: TextStyle = TextStyle::new(12.0, Anchor::Start);

impl Plot {
    /// A latency CDF: x = round-trip time (µs, logarithmic, so medians and millisecond tails
    /// both show), y = quantile on a "nines" scale (−log10(1 − q)), so the tail is visible.
    pub fn latency_cdf(title: &str, series: &[(String, Vec<(f64, f64)>)]) -> Plot {
        Plot::Cdf {
            title: title.to_string(),
            series: series.to_vec(),
        }
    }

    /// Grouped bars.
    pub fn bars(title: &str, unit: &str, groups: &[(String, Vec<(String, f64)>)]) -> Plot {
        Plot::Bars {
            title: title.to_string(),
            unit: unit.to_string(),
            groups: groups.to_vec(),
        }
    }

    /// The figure as an SVG document.
    pub fn svg(&self) -> String {
        let mut c = crate::svg::SvgCanvas::new(W, H);
        self.draw(&mut c);
        c.finish()
    }

    /// The figure as a PNG file's bytes.
    pub fn png(&self) -> Result<Vec<u8>, BenchError> {
        crate::raster::png(self)
    }

    /// Draws the figure.
    pub fn draw(&self, c: &mut dyn Canvas) {
        let title = match self {
            Plot::Cdf { title, .. } | Plot::Bars { title, .. } => title,
        };
        c.rect((0.0, 0.0), (W, H), Some("#ffffff"), None, None);
        c.text((W / 2.0, 22.0), title, TextStyle::new(15.0, Anchor::Middle));
        match self {
            Plot::Cdf { series, .. } => cdf(c, series),
            Plot::Bars { unit, groups, .. } => bars(c, unit, groups),
        }
    }
}

fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if v <= m * mag {
            return m * mag;
        }
    }
    10.0 * mag
}

fn thin(colour: &str) -> Stroke<'_> {
    Stroke {
        colour,
        width: 1.0,
        dashed: false,
    }
}

fn axis_title(c: &mut dyn Canvas, y_title: &str) {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    c.rect((LEFT, TOP), (pw, ph), None, Some("#444444"), None);
    c.text(
        (16.0, TOP + ph / 2.0),
        y_title,
        TextStyle {
            vertical: true,
            ..TextStyle::new(12.0, Anchor::Middle)
        },
    );
}

fn cdf(c: &mut dyn Canvas, series: &[(String, Vec<(f64, f64)>)]) {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let values = || series.iter().flat_map(|(_, p)| p.iter().map(|(_, v)| *v));
    let lo = values().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let hi = values().fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (
            10f64.powf(lo.log10().floor()),
            10f64.powf(hi.log10().ceil()),
        )
    } else {
        (1.0, 10.0)
    };
    let span = (hi / lo).log10();
    let nines = |q: f64| -(1.0 - q.min(0.9999)).log10(); // 0 .. 4
    let x = |v: f64| LEFT + ((v.max(lo) / lo).log10() / span) * pw;
    let y = |q: f64| TOP + ph - nines(q) / 4.0 * ph;
    // Axes and grid.
    for q in [0.0, 0.9, 0.99, 0.999, 0.9999] {
        c.line((LEFT, y(q)), (LEFT + pw, y(q)), thin("#dddddd"));
        let label = if q == 0.0 {
            "0".to_string()
        } else {
            format!("{q}")
        };
        c.text(
            (LEFT - 6.0, y(q) + 4.0),
            &label,
            TextStyle::new(12.0, Anchor::End),
        );
    }
    let mut decade = lo;
    while decade <= hi * 1.001 {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v > hi * 1.001 {
                break;
            }
            c.line((x(v), TOP), (x(v), TOP + ph), thin("#eeeeee"));
            if m == 1.0 {
                c.text(
                    (x(v), TOP + ph + 16.0),
                    &format!("{v}"),
                    TextStyle::new(12.0, Anchor::Middle),
                );
            }
        }
        decade *= 10.0;
    }
    axis_title(c, "quantile (nines scale)");
    c.text(
        (LEFT + pw / 2.0, H - 18.0),
        "round-trip time (µs, log scale)",
        TextStyle::new(12.0, Anchor::Middle),
    );
    for (i, (label, pts)) in series.iter().enumerate() {
        let stroke = Stroke {
            colour: COLOURS[i % COLOURS.len()],
            width: 1.8,
            dashed: label.contains("raw"),
        };
        let path: Vec<(f64, f64)> = pts
            .iter()
            .filter(|(q, _)| *q < 1.0)
            .map(|(q, v)| (x(*v), y(*q)))
            .collect();
        c.polyline(&path, stroke);
        let ly = TOP + 14.0 + 18.0 * i as f64;
        c.line(
            (W - RIGHT + 12.0, ly),
            (W - RIGHT + 36.0, ly),
            Stroke {
                width: 2.0,
                ..stroke
            },
        );
        c.text((W - RIGHT + 42.0, ly + 4.0), label, NORMAL);
    }
}

/// Splits `label` at spaces into lines of at most `chars` characters (a longer word stays
/// whole), so that group labels wider than their group (about 6 units a character at font size
/// 10) do not run into their neighbours.
fn wrap(label: &str, chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in label.split(' ') {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= chars => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

fn bars(c: &mut dyn Canvas, unit: &str, groups: &[(String, Vec<(String, f64)>)]) {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let vmax = nice_max(
        groups
            .iter()
            .flat_map(|(_, b)| b.iter().map(|(_, v)| *v))
            .fold(0.0, f64::max),
    );
    let y = |v: f64| TOP + ph - (v / vmax) * ph;
    for i in 0..=5 {
        let v = vmax * f64::from(i) / 5.0;
        c.line((LEFT, y(v)), (LEFT + pw, y(v)), thin("#dddddd"));
        let label = if vmax >= 10_000.0 {
            format!("{:.0}k", v / 1000.0)
        } else {
            format!("{v:.0}")
        };
        c.text(
            (LEFT - 6.0, y(v) + 4.0),
            &label,
            TextStyle::new(12.0, Anchor::End),
        );
    }
    let gw = pw / groups.len().max(1) as f64;
    let mut names: Vec<String> = Vec::new();
    for (gi, (label, bars)) in groups.iter().enumerate() {
        let bw = gw * 0.8 / bars.len().max(1) as f64;
        for (bi, (name, v)) in bars.iter().enumerate() {
            let ci = names.iter().position(|n| n == name).unwrap_or_else(|| {
                names.push(name.clone());
                names.len() - 1
            });
            let bx = LEFT + gw * gi as f64 + gw * 0.1 + bw * bi as f64;
            c.rect(
                (bx, y(*v)),
                (bw * 0.95, (TOP + ph - y(*v)).max(0.0)),
                Some(COLOURS[ci % COLOURS.len()]),
                None,
                Some(&format!("{name}: {v:.0} {unit}")),
            );
        }
        let cx = LEFT + gw * (gi as f64 + 0.5);
        for (li, line) in wrap(label, (gw / 6.0) as usize).iter().enumerate() {
            c.text(
                (cx, TOP + ph + 16.0 + 12.0 * li as f64),
                line,
                TextStyle::new(10.0, Anchor::Middle),
            );
        }
    }
    for (i, n) in names.iter().enumerate() {
        let ly = TOP + 14.0 + 18.0 * i as f64;
        c.rect(
            (W - RIGHT + 12.0, ly - 5.0),
            (14.0, 10.0),
            Some(COLOURS[i % COLOURS.len()]),
            None,
            None,
        );
        c.text((W - RIGHT + 32.0, ly + 4.0), n, NORMAL);
    }
    axis_title(c, unit);
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_breaks_at_spaces_and_keeps_long_words() {
        assert_eq!(
            wrap("2→1 reliable batch off", 13),
            ["2→1 reliable", "batch off"]
        );
        assert_eq!(wrap("1→1 reliable", 40), ["1→1 reliable"]);
        assert_eq!(wrap("best-effort x", 4), ["best-effort", "x"]);
    }
}
