//! Uploads: reading a multipart form within limits; what the upload is and what of it is
//! accepted is `course::intake`'s, and is stored here. An upload with any rejection saves
//! nothing until the instructor confirms the accepted part.

use std::collections::HashMap;

use actix_multipart::Multipart;
use actix_web::HttpRequest;
use actix_web::http::header::CONTENT_LENGTH;
use futures_util::TryStreamExt;

use super::db::{SubmissionRow, now};
use super::{App, AppError};
use course::intake::{Checked, UploadReport};

/// A multipart form read into memory: its text fields and its files.
#[derive(Default)]
pub struct Form {
    pub fields: HashMap<String, String>,
    /// `(field name, file name, bytes)`, in the order sent.
    pub files: Vec<(String, String, Vec<u8>)>,
}

/// The most bytes a text field of a form may have.
const MAX_FIELD_BYTES: usize = 64 << 10;

impl Form {
    /// Reads the whole form; more than `limit` bytes in all is refused with 413, at once
    /// when the request says its length (`Content-Length`) and otherwise as soon as the
    /// bytes read pass the limit; a text field over [`MAX_FIELD_BYTES`] is refused too.
    pub async fn read(req: &HttpRequest, mut payload: Multipart, limit: usize) -> Result<Form, AppError> {
        let too_large = || AppError::TooLarge(format!("the upload is larger than the limit of {} MiB: nothing was saved", limit >> 20));
        let declared = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|length| length > limit) {
            return Err(too_large());
        }
        let mut form = Form::default();
        let mut total = 0usize;
        let unreadable = |e: actix_multipart::MultipartError| AppError::BadRequest(format!("the form cannot be read: {e}"));
        while let Some(mut field) = payload.try_next().await.map_err(unreadable)? {
            let name = field.name().unwrap_or_default().to_owned();
            let file_name = field.content_disposition().and_then(|cd| cd.get_filename()).map(str::to_owned);
            let mut bytes = Vec::new();
            while let Some(chunk) = field.try_next().await.map_err(unreadable)? {
                total += chunk.len();
                if total > limit {
                    return Err(too_large());
                }
                if file_name.is_none() && bytes.len() + chunk.len() > MAX_FIELD_BYTES {
                    return Err(AppError::TooLarge(format!("the form field `{name}` is larger than {} KiB: nothing was saved", MAX_FIELD_BYTES >> 10)));
                }
                bytes.extend_from_slice(&chunk);
            }
            match file_name {
                // A file input left empty sends a part with an empty name and no bytes.
                Some(file) if file.is_empty() && bytes.is_empty() => {}
                Some(file) => form.files.push((name, file, bytes)),
                None => {
                    form.fields.insert(name, String::from_utf8_lossy(&bytes).into_owned());
                }
            }
        }
        Ok(form)
    }

    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(|s| s.trim()).filter(|s| !s.is_empty())
    }
}

/// What of a report is saved: the accepted files' submissions.
pub fn submissions(report: &UploadReport) -> Vec<SubmissionRow> {
    report
        .accepted()
        .filter_map(|f| {
            Some(SubmissionRow { student: f.student.clone()?, file: f.file.clone(), sha256: f.sha256.clone()?, late: report.late || f.late, uploaded: now() })
        })
        .collect()
}

/// Stores the accepted files' bytes of a checked upload under `--data`, and returns its
/// report.
pub fn keep(app: &App, checked: Checked) -> Result<UploadReport, AppError> {
    for (sha256, bytes) in &checked.stored {
        let kept = app.put_module(bytes)?;
        debug_assert_eq!(&kept, sha256, "a module is kept by its SHA-256");
    }
    Ok(checked.report)
}
