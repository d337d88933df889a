//! Hand-written SVG plots (no plotting crate): a latency CDF (logarithmic time axis, "nines"
//! quantile axis) and grouped bars for throughput.

use std::fmt::Write;

const W: f64 = 760.0;
const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 220.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn header(out: &mut String, title: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
"#,
        W / 2.0,
        esc(title)
    );
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

/// A latency CDF: x = round-trip time (µs, logarithmic, so medians and millisecond tails both
/// show), y = quantile on a "nines" scale (−log10(1 − q)), so the tail is visible. `series`:
/// (label, points (q, µs)).
pub fn latency_cdf(title: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let mut out = String::new();
    header(&mut out, title);
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
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.1}" y="{3:.1}" text-anchor="end">{4}</text>"##,
            y(q),
            LEFT + pw,
            LEFT - 6.0,
            y(q) + 4.0,
            if q == 0.0 {
                "0".to_string()
            } else {
                format!("{q}")
            }
        );
    }
    let mut decade = lo;
    while decade <= hi * 1.001 {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v > hi * 1.001 {
                break;
            }
            let label = if m == 1.0 {
                format!("{v}")
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                r##"<line x1="{0:.1}" y1="{TOP}" x2="{0:.1}" y2="{1:.1}" stroke="#eee"/><text x="{0:.1}" y="{2:.1}" text-anchor="middle">{3}</text>"##,
                x(v),
                TOP + ph,
                TOP + ph + 16.0,
                label
            );
        }
        decade *= 10.0;
    }
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>
<text x="{0:.1}" y="{1:.1}" text-anchor="middle">round-trip time (µs, log scale)</text>
<text x="16" y="{2:.1}" transform="rotate(-90 16 {2:.1})" text-anchor="middle">quantile (nines scale)</text>"##,
        LEFT + pw / 2.0,
        H - 18.0,
        TOP + ph / 2.0
    );
    for (i, (label, pts)) in series.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let dash = if label.contains("raw") {
            r#" stroke-dasharray="5,3""#
        } else {
            ""
        };
        let path: Vec<String> = pts
            .iter()
            .filter(|(q, _)| *q < 1.0)
            .map(|(q, v)| format!("{:.1},{:.1}", x(*v), y(*q)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="{c}" stroke-width="1.8"{dash} points="{}"/>"#,
            path.join(" ")
        );
        let ly = TOP + 14.0 + 18.0 * i as f64;
        let _ = writeln!(
            out,
            r#"<line x1="{0:.1}" y1="{ly:.1}" x2="{1:.1}" y2="{ly:.1}" stroke="{c}" stroke-width="2"{dash}/><text x="{2:.1}" y="{3:.1}">{4}</text>"#,
            W - RIGHT + 12.0,
            W - RIGHT + 36.0,
            W - RIGHT + 42.0,
            ly + 4.0,
            esc(label)
        );
    }
    out.push_str("</svg>\n");
    out
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

/// Grouped bars: one group per configuration, one bar per series (e.g. hlamesh, raw-udp).
pub fn bars(title: &str, unit: &str, groups: &[(String, Vec<(String, f64)>)]) -> String {
    let mut out = String::new();
    header(&mut out, title);
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
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.1}" y="{3:.1}" text-anchor="end">{4}</text>"##,
            y(v),
            LEFT + pw,
            LEFT - 6.0,
            y(v) + 4.0,
            if vmax >= 10_000.0 {
                format!("{:.0}k", v / 1000.0)
            } else {
                format!("{v:.0}")
            }
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
            let _ = writeln!(
                out,
                r#"<rect x="{bx:.1}" y="{0:.1}" width="{1:.1}" height="{2:.1}" fill="{3}"><title>{4}: {v:.0} {5}</title></rect>"#,
                y(*v),
                bw * 0.95,
                (TOP + ph - y(*v)).max(0.0),
                COLOURS[ci % COLOURS.len()],
                esc(name),
                esc(unit)
            );
        }
        let cx = LEFT + gw * (gi as f64 + 0.5);
        for (li, line) in wrap(label, (gw / 6.0) as usize).iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text x="{cx:.1}" y="{0:.1}" text-anchor="middle" font-size="10">{1}</text>"#,
                TOP + ph + 16.0 + 12.0 * li as f64,
                esc(line)
            );
        }
    }
    for (i, n) in names.iter().enumerate() {
        let ly = TOP + 14.0 + 18.0 * i as f64;
        let _ = writeln!(
            out,
            r#"<rect x="{0:.1}" y="{1:.1}" width="14" height="10" fill="{2}"/><text x="{3:.1}" y="{4:.1}">{5}</text>"#,
            W - RIGHT + 12.0,
            ly - 5.0,
            COLOURS[i % COLOURS.len()],
            W - RIGHT + 32.0,
            ly + 4.0,
            esc(n)
        );
    }
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>
<text x="16" y="{0:.1}" transform="rotate(-90 16 {0:.1})" text-anchor="middle">{1}</text>"##,
        TOP + ph / 2.0,
        esc(unit)
    );
    out.push_str("</svg>\n");
    out
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
