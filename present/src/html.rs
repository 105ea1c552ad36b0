//! What every page this crate writes shares: escaping and the head of a self-contained page.

/// `text` safe inside HTML text and attribute values.
pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The start of a self-contained page, up to and including `<body>`.
pub fn page_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>\
         body{{font-family:sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}}\
         table{{border-collapse:collapse;margin:1rem 0}}td,th{{border:1px solid #ccc;padding:.3rem .6rem;text-align:right}}\
         th:first-child,td:first-child{{text-align:left}}caption{{text-align:left;font-weight:bold}}\
         code{{background:#f4f4f4;padding:0 .2rem;white-space:pre-wrap;overflow-wrap:anywhere}}.bad{{color:#cf222e}}.muted{{color:#57606a}}table.order td,table.results td{{text-align:left}}table.results td.num{{text-align:right}}td:has(code){{text-align:left}}.note{{color:#555;font-size:.9rem}}svg{{max-width:100%;height:auto}}</style></head><body>\n",
        escape_html(title)
    )
}
