//! The PNG of `cargo xtask plot`: one panel per operation, one horizontal bar per set (the mean
//! of the rounds' ratios ours / Phantom, with a line over their range), reference lines at 0.5
//! (the target) and 1.0 (parity). Text is drawn with DejaVu Sans embedded in the binary
//! (the `dejavu` crate), so no system font is needed.

use std::path::Path;

use anyhow::{Result, anyhow};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::perf::Comparison;

const FONT: &str = "sans-serif";
const LABEL_WIDTH: i32 = 250;
const PANEL_WIDTH: i32 = 300;
const GAP: i32 = 24;
const ROW_HEIGHT: i32 = 20;
const PANEL_HEAD: i32 = 26;
const PANEL_FOOT: i32 = 26;
const TITLE_HEIGHT: i32 = 44;
const COLUMNS: usize = 4;

const TARGET: RGBColor = RGBColor(31, 119, 180);
const PARITY: RGBColor = RGBColor(120, 120, 120);
const GOOD: RGBColor = RGBColor(44, 160, 44);
const FAIR: RGBColor = RGBColor(255, 152, 28);
const BAD: RGBColor = RGBColor(214, 39, 40);
const SHADE: RGBColor = RGBColor(242, 242, 242);

fn font(size: f64, h: HPos) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font()).color(&BLACK).pos(Pos::new(h, VPos::Center))
}

fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("drawing the plot: {e}")
}

/// Draws `comparison` into the PNG `out`.
pub fn draw(comparison: &Comparison, title: &str, out: &Path) -> Result<()> {
    // Registering the same font twice (two plots in one process) is harmless.
    plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| anyhow!("the embedded DejaVu Sans could not be loaded"))?;
    let ops = comparison.ops();
    let rows = &comparison.rows;
    if ops.is_empty() || rows.is_empty() {
        return Err(anyhow!("nothing to plot: no operation has both our and Phantom's figure"));
    }
    let n = rows.len() as i32;
    let panel_rows = ops.len().div_ceil(COLUMNS) as i32;
    let panel_height = PANEL_HEAD + n * ROW_HEIGHT + PANEL_FOOT;
    let width = LABEL_WIDTH + COLUMNS as i32 * (PANEL_WIDTH + GAP);
    let height = TITLE_HEIGHT + panel_rows * (panel_height + 12) + 8;
    let max_ratio = rows.iter().flat_map(|r| ops.iter().flat_map(|&op| r.ratios(op))).fold(1.0f64, f64::max);
    let x_max = ((max_ratio * 2.0).ceil() / 2.0).max(1.5);

    let root = BitMapBackend::new(out, (width as u32, height as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    root.draw(&Text::new(title.to_string(), (12, TITLE_HEIGHT / 2), font(18.0, HPos::Left))).map_err(err)?;
    let legend_x = width - 560;
    for (i, (color, text)) in [(GOOD, "<= 0.5"), (FAIR, "<= 1"), (BAD, "> 1 (slower)")].into_iter().enumerate() {
        let x = legend_x + i as i32 * 100;
        root.draw(&Rectangle::new([(x, TITLE_HEIGHT / 2 - 6), (x + 14, TITLE_HEIGHT / 2 + 6)], color.filled()))
            .map_err(err)?;
        root.draw(&Text::new(text, (x + 20, TITLE_HEIGHT / 2), font(13.0, HPos::Left))).map_err(err)?;
    }
    for (i, (color, text)) in [(TARGET, "0.5 target"), (PARITY, "1.0 parity")].into_iter().enumerate() {
        let x = legend_x + 300 + i as i32 * 120;
        root.draw(&PathElement::new(
            vec![(x + 7, TITLE_HEIGHT / 2 - 8), (x + 7, TITLE_HEIGHT / 2 + 8)],
            color.stroke_width(2),
        ))
        .map_err(err)?;
        root.draw(&Text::new(text, (x + 16, TITLE_HEIGHT / 2), font(13.0, HPos::Left))).map_err(err)?;
    }

    for (p, &op) in ops.iter().enumerate() {
        let column = (p % COLUMNS) as i32;
        let panel_row = (p / COLUMNS) as i32;
        let left = LABEL_WIDTH + column * (PANEL_WIDTH + GAP);
        let top = TITLE_HEIGHT + panel_row * (panel_height + 12);
        let bars_top = top + PANEL_HEAD;
        let bars_bottom = bars_top + n * ROW_HEIGHT;
        let plot_width = PANEL_WIDTH - 40;
        let x_of = |ratio: f64| left + (ratio / x_max * f64::from(plot_width)).round() as i32;

        root.draw(&Text::new(op.label(), (left + plot_width / 2, top + PANEL_HEAD / 2), font(15.0, HPos::Center)))
            .map_err(err)?;
        for (i, row) in rows.iter().enumerate() {
            let y = bars_top + i as i32 * ROW_HEIGHT;
            if i % 2 == 0 {
                root.draw(&Rectangle::new([(left, y), (left + plot_width, y + ROW_HEIGHT)], SHADE.filled()))
                    .map_err(err)?;
            }
            if column == 0 {
                root.draw(&Text::new(row.label(), (left - 8, y + ROW_HEIGHT / 2), font(13.0, HPos::Right)))
                    .map_err(err)?;
            }
        }
        // Ticks every 0.5 and the reference lines.
        let mut tick = 0.0;
        while tick <= x_max + 1e-9 {
            let x = x_of(tick);
            root.draw(&PathElement::new(vec![(x, bars_bottom), (x, bars_bottom + 4)], BLACK)).map_err(err)?;
            root.draw(&Text::new(format!("{tick:.1}"), (x, bars_bottom + 13), font(11.0, HPos::Center)))
                .map_err(err)?;
            tick += 0.5;
        }
        root.draw(&PathElement::new(vec![(left, bars_bottom), (left + plot_width, bars_bottom)], BLACK))
            .map_err(err)?;
        root.draw(&PathElement::new(vec![(left, bars_top), (left, bars_bottom)], BLACK)).map_err(err)?;

        for (ratio, color) in [(0.5, TARGET), (1.0, PARITY)] {
            let x = x_of(ratio);
            root.draw(&PathElement::new(vec![(x, bars_top), (x, bars_bottom)], color.stroke_width(2))).map_err(err)?;
        }

        for (i, row) in rows.iter().enumerate() {
            let ratios = row.ratios(op);
            let y = bars_top + i as i32 * ROW_HEIGHT;
            if ratios.is_empty() {
                root.draw(&Text::new("-", (left + 6, y + ROW_HEIGHT / 2), font(11.0, HPos::Left))).map_err(err)?;
                continue;
            }
            let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
            let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = ratios.iter().copied().fold(0.0f64, f64::max);
            let color = if mean <= 0.5 {
                GOOD
            } else if mean <= 1.0 {
                FAIR
            } else {
                BAD
            };
            root.draw(&Rectangle::new([(left + 1, y + 4), (x_of(mean), y + ROW_HEIGHT - 4)], color.filled()))
                .map_err(err)?;
            let mid = y + ROW_HEIGHT / 2;
            root.draw(&PathElement::new(vec![(x_of(lo), mid), (x_of(hi), mid)], BLACK.stroke_width(2))).map_err(err)?;
            root.draw(&Text::new(format!("{mean:.2}"), (x_of(hi) + 4, mid), font(11.0, HPos::Left))).map_err(err)?;
        }
    }
    root.present().map_err(err)?;
    Ok(())
}
