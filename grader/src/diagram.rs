//! The correctness partial order drawn as a layered diagram (Paper III, Figures 3.2-3.4).
//!
//! Classes are boxes, one layer per number of tests passed, better layers higher; within
//! a layer, boxes are ordered to reduce crossings (barycentre sweeps). Covering arrows go
//! from a box's bottom to a lower box's top, labelled with the witness test's input and
//! "(+n)". [`layout`] computes positions; [`order_svg`] draws them with plotters.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::Analysis;
use crate::report::ANSWERS_PER_NODE;

/// Pixels per character of the diagram's text (12 px sans-serif averages under 7).
const CHAR_WIDTH: i32 = 7;
const BOX_HEIGHT: i32 = 40;
/// Vertical distance between layers: room for the arrows' labels.
const LAYER_GAP: i32 = 90;
const BOX_GAP: i32 = 30;
const MARGIN: i32 = 20;
/// Widest row of boxes before a layer wraps (pixels).
const MAX_ROW_WIDTH: i32 = 1600;
/// Room a long arrow takes in each layer it passes through.
const DUMMY_WIDTH: i32 = 14;
/// Witness inputs longer than this are cut with an ellipsis in labels.
const LABEL_CHARS: usize = 28;
/// Barycentre sweeps (down then up) to reduce crossings; a few suffice in practice.
const SWEEPS: usize = 8;

/// Where one class's box is.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBox {
    pub class: String,
    /// First line: the answers (abbreviated); second line: tests passed.
    pub label: [String; 2],
    pub x: i32,
    pub y: i32,
    pub width: i32,
}

impl NodeBox {
    pub fn top(&self) -> (i32, i32) {
        (self.x + self.width / 2, self.y)
    }
    pub fn bottom(&self) -> (i32, i32) {
        (self.x + self.width / 2, self.y + BOX_HEIGHT)
    }
}

/// A covering arrow and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    /// From the upper box's bottom, through a bend in each layer it crosses, to the lower
    /// box's top.
    pub points: Vec<(i32, i32)>,
    pub label: String,
    /// Where the label's centre sits: near the end that fewer arrows share, so that the
    /// labels of a fan of arrows spread out instead of piling up.
    pub label_at: (i32, i32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: i32,
    pub height: i32,
    pub nodes: Vec<NodeBox>,
    pub arrows: Vec<Arrow>,
}

/// Lays the order out: layers by tests passed, crossings reduced, sizes from the labels.
pub fn layout(analysis: &Analysis) -> Layout {
    let order = &analysis.order;
    let total = analysis.scored_tests();
    let mut passed: Vec<usize> = order.classes.iter().map(|c| c.passed).collect();
    passed.sort_unstable_by(|a, b| b.cmp(a));
    passed.dedup();
    let layer_of = |class: usize| passed.iter().position(|&p| p == order.classes[class].passed).unwrap();
    let index_of = |id: &str| order.classes.iter().position(|c| c.id == id).expect("edges join classes");
    let edges: Vec<(usize, usize)> = order.edges.iter().map(|e| (index_of(&e.from), index_of(&e.to))).collect();

    // Sugiyama-style: an arrow spanning several layers passes through a narrow dummy node
    // in each layer between, so that ordering takes it into account and it is drawn around
    // the boxes instead of through them. Nodes 0..classes are the classes.
    let classes = order.classes.len();
    let mut node_layer: Vec<usize> = (0..classes).map(layer_of).collect();
    let mut paths: Vec<Vec<usize>> = Vec::new();
    for &(from, to) in &edges {
        let mut path = vec![from];
        for layer in node_layer[from] + 1..node_layer[to] {
            node_layer.push(layer);
            path.push(node_layer.len() - 1);
        }
        path.push(to);
        paths.push(path);
    }
    let segments: Vec<(usize, usize)> = paths.iter().flat_map(|p| p.windows(2).map(|w| (w[0], w[1]))).collect();

    // Initial order within layers: class order (stable by passed, then first answer).
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); passed.len()];
    (0..node_layer.len()).for_each(|n| layers[node_layer[n]].push(n));
    for sweep in 0..SWEEPS {
        let downward = sweep % 2 == 0;
        let range: Vec<usize> = if downward { (1..layers.len()).collect() } else { (0..layers.len().saturating_sub(1)).rev().collect() };
        for layer in range {
            let mut position = vec![0.0; node_layer.len()];
            for l in &layers {
                l.iter().enumerate().for_each(|(i, &n)| position[n] = i as f64);
            }
            let mut keyed: Vec<(f64, usize)> = layers[layer]
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    let neighbours: Vec<f64> = segments
                        .iter()
                        .filter_map(|&(a, b)| match downward {
                            true if b == n => Some(position[a]),
                            false if a == n => Some(position[b]),
                            _ => None,
                        })
                        .collect();
                    let key = if neighbours.is_empty() { i as f64 } else { neighbours.iter().sum::<f64>() / neighbours.len() as f64 };
                    (key, n)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            layers[layer] = keyed.into_iter().map(|(_, n)| n).collect();
        }
    }

    let labels: Vec<[String; 2]> = order
        .classes
        .iter()
        .map(|class| {
            let mut names: Vec<&str> = class.answers.iter().take(ANSWERS_PER_NODE).map(String::as_str).collect();
            let more = format!("+{} more", class.answers.len().saturating_sub(ANSWERS_PER_NODE));
            if class.answers.len() > ANSWERS_PER_NODE {
                names.push(&more);
            }
            [names.join(", "), format!("{}/{total} passed", class.passed)]
        })
        .collect();
    let node_width = |n: usize| match labels.get(n) {
        Some(label) => label.iter().map(|l| l.chars().count() as i32).max().unwrap_or(1) * CHAR_WIDTH + 16,
        None => DUMMY_WIDTH,
    };
    let row_width = |row: &[usize]| row.iter().map(|&n| node_width(n) + BOX_GAP).sum::<i32>() - BOX_GAP;
    // A layer wider than MAX_ROW_WIDTH wraps onto several rows, so that a class of 200
    // answers with many distinct results stays legible instead of shrinking to a line.
    let rows: Vec<Vec<usize>> = layers
        .iter()
        .flat_map(|layer| {
            let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
            for &n in layer {
                let current = rows.last_mut().expect("at least one row");
                if !current.is_empty() && row_width(current) + BOX_GAP + node_width(n) > MAX_ROW_WIDTH {
                    rows.push(vec![n]);
                } else {
                    current.push(n);
                }
            }
            rows
        })
        .collect();
    let width = rows.iter().map(|r| row_width(r)).max().unwrap_or(0) + 2 * MARGIN;
    let mut place: Vec<(i32, i32)> = vec![(0, 0); node_layer.len()];
    for (r, row) in rows.iter().enumerate() {
        let mut x = (width - row_width(row)) / 2;
        for &n in row {
            place[n] = (x, MARGIN + r as i32 * (BOX_HEIGHT + LAYER_GAP));
            x += node_width(n) + BOX_GAP;
        }
    }
    let nodes: Vec<NodeBox> = (0..classes)
        .map(|c| NodeBox {
            class: order.classes[c].id.clone(),
            label: labels[c].clone(),
            x: place[c].0,
            y: place[c].1,
            width: node_width(c),
        })
        .collect();
    let arrows = order
        .edges
        .iter()
        .zip(&edges)
        .zip(&paths)
        .map(|((edge, &(from, to)), path)| {
            let input = analysis.suite.iter().find(|t| t.id == edge.witness).map_or("", |t| t.input.as_str());
            let mut label = one_line(input, LABEL_CHARS);
            if edge.others > 0 {
                label.push_str(&format!(" (+{})", edge.others));
            }
            let mut points = vec![nodes[from].bottom()];
            points.extend(path[1..path.len() - 1].iter().map(|&d| (place[d].0 + DUMMY_WIDTH / 2, place[d].1 + BOX_HEIGHT / 2)));
            points.push(nodes[to].top());
            let fan_out: Vec<&(usize, usize)> = edges.iter().filter(|e| e.0 == from).collect();
            let fan_in: Vec<&(usize, usize)> = edges.iter().filter(|e| e.1 == to).collect();
            // The label goes on the end segment that fewer arrows share; neighbours in a
            // fan alternate between two distances, staggering their labels.
            let (a, b, t) = if fan_out.len() >= fan_in.len() {
                let k = fan_out.iter().position(|e| e.1 == to).unwrap_or(0);
                (points[points.len() - 2], points[points.len() - 1], 0.8 - 0.25 * (k % 2) as f64)
            } else {
                let k = fan_in.iter().position(|e| e.0 == from).unwrap_or(0);
                (points[0], points[1], 0.2 + 0.25 * (k % 2) as f64)
            };
            let along = |p: i32, q: i32| p + ((q - p) as f64 * t) as i32;
            Arrow { points, label, label_at: (along(a.0, b.0), along(a.1, b.1)) }
        })
        .collect();
    let height = MARGIN * 2 + rows.len() as i32 * (BOX_HEIGHT + LAYER_GAP) - LAYER_GAP;
    let mut layout = Layout { width: width.max(200), height: height.max(BOX_HEIGHT + 2 * MARGIN), nodes, arrows };
    fit_labels(&mut layout);
    layout
}

/// Pixels a label takes (11 px text averages under 6 per character).
fn label_width(label: &str) -> i32 {
    label.chars().count() as i32 * 6 + 6
}

/// Widens the canvas, and shifts the drawing right, so that no arrow label is cut off.
fn fit_labels(layout: &mut Layout) {
    let extent = |a: &Arrow| (a.label_at.0 - label_width(&a.label) / 2, a.label_at.0 + label_width(&a.label) / 2);
    let left = layout.arrows.iter().map(|a| extent(a).0).min().unwrap_or(0);
    let shift = (MARGIN / 2 - left).max(0);
    for node in &mut layout.nodes {
        node.x += shift;
    }
    for arrow in &mut layout.arrows {
        arrow.points.iter_mut().for_each(|p| p.0 += shift);
        arrow.label_at.0 += shift;
    }
    let right = layout.arrows.iter().map(|a| extent(a).1).max().unwrap_or(0);
    layout.width = (layout.width + shift).max(right + MARGIN / 2);
}

/// `text` on one line, for a label or a terminal column: quoted, with newlines and other
/// control characters escaped (`"a\nb"`), and cut to `max_chars` characters with `…`.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let quoted = format!("{text:?}");
    if quoted.chars().count() <= max_chars {
        return quoted;
    }
    let cut: String = quoted.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// The diagram as a self-contained SVG document.
pub fn order_svg(analysis: &Analysis) -> String {
    let layout = layout(analysis);
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (layout.width as u32, layout.height as u32)).into_drawing_area();
        draw(&area, &layout).expect("drawing into a string cannot fail");
    }
    svg
}

fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, layout: &Layout) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let text = |size: u32, color: RGBColor| {
        ("sans-serif", size).into_font().color(&color).pos(Pos::new(HPos::Center, VPos::Center))
    };
    let edge_color = RGBColor(90, 90, 90);
    for arrow in &layout.arrows {
        area.draw(&PathElement::new(arrow.points.clone(), edge_color.stroke_width(1)))?;
        // Arrowhead: a small triangle at the target, along the last segment.
        let (from, to) = (arrow.points[arrow.points.len() - 2], arrow.points[arrow.points.len() - 1]);
        let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
        let length = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / length, dy / length);
        let back = |side: f64| {
            ((to.0 as f64 - 9.0 * ux + side * 4.0 * uy) as i32, (to.1 as f64 - 9.0 * uy - side * 4.0 * ux) as i32)
        };
        area.draw(&Polygon::new(vec![to, back(1.0), back(-1.0)], edge_color.filled()))?;
        let middle = arrow.label_at;
        let width = label_width(&arrow.label);
        area.draw(&Rectangle::new(
            [(middle.0 - width / 2, middle.1 - 8), (middle.0 + width / 2, middle.1 + 8)],
            WHITE.mix(0.85).filled(),
        ))?;
        area.draw(&Text::new(arrow.label.clone(), middle, text(13, RGBColor(40, 40, 120))))?;
    }
    for node in &layout.nodes {
        let corners = [(node.x, node.y), (node.x + node.width, node.y + BOX_HEIGHT)];
        area.draw(&Rectangle::new(corners, RGBColor(235, 242, 250).filled()))?;
        area.draw(&Rectangle::new(corners, RGBColor(60, 90, 140).stroke_width(1)))?;
        let centre = node.x + node.width / 2;
        area.draw(&Text::new(node.label[0].clone(), (centre, node.y + 13), text(15, BLACK)))?;
        area.draw(&Text::new(node.label[1].clone(), (centre, node.y + 29), text(13, RGBColor(80, 80, 80))))?;
    }
    area.present()
}

#[cfg(test)]
mod tests {
    use super::one_line;

    fn check(text: &str, max_chars: usize, expected: &str) {
        assert_eq!(one_line(text, max_chars), expected, "{text:?} in {max_chars}");
    }

    #[test]
    fn an_input_is_one_quoted_line_cut_to_its_column() {
        check("member 0 []", 40, "\"member 0 []\"");
        check("first line\nsecond\tline\n", 40, "\"first line\\nsecond\\tline\\n\"");
        check("abcdefghij", 8, "\"abcdef…");
        assert_eq!(one_line(&"x\n".repeat(100), 40).chars().count(), 40);
    }
}
