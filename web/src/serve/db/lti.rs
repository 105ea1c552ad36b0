//! The store's side of the LTI 1.3 tool (`serve::lti`): the tool's keys, the platforms
//! registered, logins in flight, and who a platform's people and courses are here.

use serde::Serialize;

use super::sql::{Conn, Row, args};
use super::{Db, DbResult, now, row, rows};

/// A platform (an LMS) an instructor registered: what its launches are checked against.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlatformRow {
    pub id: i64,
    /// What instructors call it ("Canvas of Example University").
    pub name: String,
    /// Its `iss`: the id_tokens it signs say it.
    pub issuer: String,
    /// The client id it gave bugrank: the `aud` of its id_tokens.
    pub client_id: String,
    /// Its OIDC authorization endpoint, where a login goes on to.
    pub auth_url: String,
    /// Its OAuth 2 token endpoint (the services: roster, grades).
    pub token_url: String,
    /// Where its public keys are.
    pub jwks_url: String,
    /// The deployments of bugrank in it that may launch.
    pub deployment_ids: Vec<String>,
}

const PLATFORM_COLUMNS: &str = "id, name, issuer, client_id, auth_url, token_url, jwks_url, deployment_ids";

fn platform_row(r: &Row) -> DbResult<PlatformRow> {
    Ok(PlatformRow {
        id: r.int(0)?,
        name: r.text(1)?,
        issuer: r.text(2)?,
        client_id: r.text(3)?,
        auth_url: r.text(4)?,
        token_url: r.text(5)?,
        jwks_url: r.text(6)?,
        deployment_ids: r.text(7)?.lines().map(str::to_owned).collect(),
    })
}

/// Who a launch is here: the identity the platform gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Person<'a> {
    pub platform: i64,
    pub sub: &'a str,
    pub name: &'a str,
    pub email: &'a str,
}

impl Db {
    /// The tool's signing keys, the newest first: `(kid, PKCS#1 DER)`.
    pub fn lti_keys(&self) -> DbResult<Vec<(String, Vec<u8>)>> {
        self.0.run(|c| rows(c, "SELECT kid, private_der FROM lti_keys ORDER BY created DESC, kid", &[], |r| Ok((r.text(0)?, r.bytes(1)?))))
    }

    /// Keeps a new signing key, unless one was kept meanwhile (two processes starting at
    /// once): the key to sign with is then the newest, whichever that is.
    pub fn add_lti_key(&self, kid: &str, der: &[u8]) -> DbResult<()> {
        self.0.run(|c| c.execute("INSERT INTO lti_keys (kid, private_der, created) VALUES (?1, ?2, ?3)", args![kid, der, now()]))?;
        Ok(())
    }

    /// Registers a platform, or updates the one of the same issuer and client id: its id.
    pub fn add_lti_platform(&self, platform: &PlatformRow) -> DbResult<i64> {
        self.0.run(|c| {
            c.query_one(
                "INSERT INTO lti_platforms (name, issuer, client_id, auth_url, token_url, jwks_url, deployment_ids, created)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (issuer, client_id) DO UPDATE SET name = excluded.name, auth_url = excluded.auth_url,
                     token_url = excluded.token_url, jwks_url = excluded.jwks_url, deployment_ids = excluded.deployment_ids
                 RETURNING id",
                args![
                    &platform.name,
                    &platform.issuer,
                    &platform.client_id,
                    &platform.auth_url,
                    &platform.token_url,
                    &platform.jwks_url,
                    platform.deployment_ids.join("\n"),
                    now()
                ],
            )?
            .int(0)
        })
    }

    /// Every platform registered, in the order they were.
    pub fn lti_platforms(&self) -> DbResult<Vec<PlatformRow>> {
        self.0.run(|c| rows(c, &format!("SELECT {PLATFORM_COLUMNS} FROM lti_platforms ORDER BY id"), &[], platform_row))
    }

    /// The platforms registered with issuer `issuer` (one per client id).
    pub fn lti_platforms_of(&self, issuer: &str) -> DbResult<Vec<PlatformRow>> {
        self.0.run(|c| rows(c, &format!("SELECT {PLATFORM_COLUMNS} FROM lti_platforms WHERE issuer = ?1 ORDER BY id"), args![issuer], platform_row))
    }

    pub fn lti_platform(&self, id: i64) -> DbResult<Option<PlatformRow>> {
        self.0.run(|c| row(c, &format!("SELECT {PLATFORM_COLUMNS} FROM lti_platforms WHERE id = ?1"), args![id], platform_row))
    }

    /// Keeps a login in flight until `expires` (and forgets the expired ones), unless
    /// `most` are in flight already: then false, and nothing is kept (the login URL is
    /// anyone's to call: a flood of them must not fill the store).
    pub fn add_lti_state(&self, state_hash: &str, platform: i64, nonce: &str, expires: i64, most: i64) -> DbResult<bool> {
        self.0.transaction(|c| {
            c.execute("DELETE FROM lti_states WHERE expires < ?1", args![now()])?;
            if c.query_one("SELECT count(*) FROM lti_states", &[])?.int(0)? >= most {
                return Ok(false);
            }
            c.execute("INSERT INTO lti_states (state_hash, platform_id, nonce, expires) VALUES (?1, ?2, ?3, ?4)", args![state_hash, platform, nonce, expires])?;
            Ok(true)
        })
    }

    /// Takes the login in flight of this state, if it is live: its platform and nonce.
    /// Taken once: a second launch with the same state finds nothing.
    pub fn take_lti_state(&self, state_hash: &str) -> DbResult<Option<(i64, String)>> {
        self.0.run(|c| {
            row(c, "DELETE FROM lti_states WHERE state_hash = ?1 AND expires >= ?2 RETURNING platform_id, nonce", args![state_hash, now()], |r| {
                Ok((r.int(0)?, r.text(1)?))
            })
        })
    }

    /// The bugrank course of a platform's context: on its first launch, the course of the
    /// context's title when one exists that no other context is (the instructor named
    /// their batches' course as the LMS does), else a new course of that name (with the
    /// context's id when the name is taken).
    pub fn lti_course(&self, platform: i64, context: &str, title: &str) -> DbResult<(i64, String)> {
        self.0.transaction(|c| {
            let known = "SELECT c.id, c.name FROM lti_contexts x JOIN courses c ON c.id = x.course_id WHERE x.platform_id = ?1 AND x.context_id = ?2";
            if let Some(found) = row(c, known, args![platform, context], |r| Ok((r.int(0)?, r.text(1)?)))? {
                return Ok(found);
            }
            let named = "SELECT c.id, EXISTS (SELECT 1 FROM lti_contexts x WHERE x.course_id = c.id) FROM courses c WHERE c.name = ?1";
            let id = match row(c, named, args![title], |r| Ok((r.int(0)?, r.bool(1)?)))? {
                Some((id, false)) => id,
                taken => {
                    let name = if taken.is_some() { format!("{title} ({context})") } else { title.to_owned() };
                    // A class's first launches come at once: a course another launch made
                    // meanwhile is the one (on PostgreSQL the insert waits for it).
                    c.execute("INSERT INTO courses (name, created) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING", args![&name, now()])?;
                    row(c, "SELECT id FROM courses WHERE name = ?1", args![&name], |r| r.int(0))?.expect("the course is there")
                }
            };
            c.execute(
                "INSERT INTO lti_contexts (platform_id, context_id, course_id) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                args![platform, context, id],
            )?;
            Ok(row(c, known, args![platform, context], |r| Ok((r.int(0)?, r.text(1)?)))?.expect("the context is there"))
        })
    }

    /// The instructor account of a person a platform launched as an instructor, once a
    /// bugrank instructor approved them ([`Db::approve_lti_instructor`]): its id and login.
    /// Until then `None`, and they are listed as waiting.
    pub fn lti_instructor(&self, person: &Person) -> DbResult<Option<(i64, String)>> {
        self.0.transaction(|c| {
            remember(c, person)?;
            c.execute("UPDATE lti_people SET wants_instructor = TRUE WHERE platform_id = ?1 AND sub = ?2", args![person.platform, person.sub])?;
            let known = "SELECT i.id, i.login FROM lti_people p JOIN instructors i ON i.id = p.instructor_id WHERE p.platform_id = ?1 AND p.sub = ?2";
            row(c, known, args![person.platform, person.sub], |r| Ok((r.int(0)?, r.text(1)?)))
        })
    }

    /// The people waiting to come in as instructors.
    pub fn lti_waiting_instructors(&self) -> DbResult<Vec<WaitingInstructor>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT p.platform_id, l.name, p.sub, p.name, p.email FROM lti_people p JOIN lti_platforms l ON l.id = p.platform_id
                 WHERE p.wants_instructor = TRUE AND p.instructor_id IS NULL ORDER BY p.platform_id, p.name, p.sub",
                &[],
                |r| Ok(WaitingInstructor { platform: r.int(0)?, lms: r.text(1)?, sub: r.text(2)?, name: r.text(3)?, email: r.text(4)? }),
            )
        })
    }

    /// Makes the instructor account of a person waiting (`login`, with a password nobody
    /// has: they log in through the platform). False when they were not waiting.
    pub fn approve_lti_instructor(&self, platform: i64, sub: &str, login: &str, no_password: &str) -> DbResult<bool> {
        self.0.transaction(|c| {
            let waiting = "SELECT 1 FROM lti_people WHERE platform_id = ?1 AND sub = ?2 AND wants_instructor = TRUE AND instructor_id IS NULL";
            if row(c, waiting, args![platform, sub], |r| r.int(0))?.is_none() {
                return Ok(false);
            }
            // A login another account has (a password instructor's, another LMS's person) is
            // never theirs: this one gets a mark of its own.
            let mut login = login.to_owned();
            if row(c, "SELECT 1 FROM instructors WHERE login = ?1", args![&login], |r| r.int(0))?.is_some() {
                login = format!("{login} #{}", &crate::serve::store::sha256_hex(format!("{platform}:{sub}").as_bytes())[..8]);
            }
            let id = c
                .query_one("INSERT INTO instructors (login, password_hash, created) VALUES (?1, ?2, ?3) RETURNING id", args![&login, no_password, now()])?
                .int(0)?;
            c.execute("UPDATE lti_people SET instructor_id = ?3 WHERE platform_id = ?1 AND sub = ?2", args![platform, sub, id])?;
            Ok(true)
        })
    }

    /// Whether `login` is an instructor who came from an LMS (who may not register or
    /// approve anything of the LMSs).
    pub fn is_lti_instructor(&self, login: &str) -> DbResult<bool> {
        let sql = "SELECT 1 FROM lti_people p JOIN instructors i ON i.id = p.instructor_id WHERE i.login = ?1";
        Ok(self.0.run(|c| row(c, sql, args![login], |r| r.int(0)))?.is_some())
    }

    /// The student of `course` a person a platform launched as a learner is: the id they
    /// got on their first launch, else the first of `ids` no other person of the course
    /// has (a roster's student of that id who came by no launch yet is them). With a live
    /// link token (`token` issues one when there is none). Their id and token.
    pub fn lti_student(&self, person: &Person, course: i64, ids: &[String], token: &dyn Fn() -> String) -> DbResult<(String, String)> {
        self.0.transaction(|c| {
            remember(c, person)?;
            let known = "SELECT student FROM lti_students WHERE platform_id = ?1 AND sub = ?2 AND course_id = ?3";
            let student = match row(c, known, args![person.platform, person.sub, course], |r| r.text(0))? {
                Some(student) => student,
                None => {
                    let taken = "SELECT 1 FROM lti_students WHERE course_id = ?1 AND student = ?2";
                    let mut free = None;
                    for id in ids {
                        if row(c, taken, args![course, id], |r| r.int(0))?.is_none() {
                            free = Some(id.clone());
                            break;
                        }
                    }
                    let student = free.expect("the last id is the person's own, which nobody else has");
                    // Two launches of one person at once: the first one's id is theirs.
                    c.execute(
                        "INSERT INTO lti_students (platform_id, sub, course_id, student) VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (platform_id, sub, course_id) DO NOTHING",
                        args![person.platform, person.sub, course, &student],
                    )?;
                    row(c, known, args![person.platform, person.sub, course], |r| r.text(0))?.expect("the student is there")
                }
            };
            c.execute("INSERT INTO course_students (course_id, student) VALUES (?1, ?2) ON CONFLICT DO NOTHING", args![course, &student])?;
            // A link issued meanwhile (another launch, a release) is kept: never replaced.
            c.execute(
                "UPDATE course_students SET token = ?3, issued = ?4 WHERE course_id = ?1 AND student = ?2 AND token IS NULL",
                args![course, &student, token(), now()],
            )?;
            let live = row(c, "SELECT token FROM course_students WHERE course_id = ?1 AND student = ?2", args![course, &student], |r| r.opt_text(0))?.flatten();
            Ok((student, live.expect("a link is live")))
        })
    }
}

/// A person a platform launched as an instructor, waiting to be let in.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitingInstructor {
    pub platform: i64,
    /// The platform's name.
    pub lms: String,
    pub sub: String,
    pub name: String,
    pub email: String,
}

/// A deep linking request in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct DeepLinkRow {
    pub platform_id: i64,
    pub deployment_id: String,
    /// The launch's course, when it came from one.
    pub course_id: Option<i64>,
    pub return_url: String,
    pub data: Option<String>,
}

/// A platform's link to bugrank (a resource link of the LMS), as its launches said it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkRow {
    pub platform_id: i64,
    pub link_id: String,
    pub course_id: i64,
    pub title: String,
    /// The batch whose released points go to the link's line item.
    pub batch_id: Option<i64>,
    pub lineitems_url: Option<String>,
    pub lineitem_url: Option<String>,
    pub memberships_url: Option<String>,
    /// Why the last sending of grades failed, if it did.
    pub sync_error: Option<String>,
}

const LINK_COLUMNS: &str = "platform_id, link_id, course_id, title, batch_id, lineitems_url, lineitem_url, memberships_url, sync_error";

fn link_row(r: &Row) -> DbResult<LinkRow> {
    Ok(LinkRow {
        platform_id: r.int(0)?,
        link_id: r.text(1)?,
        course_id: r.int(2)?,
        title: r.text(3)?,
        batch_id: r.opt_int(4)?,
        lineitems_url: r.opt_text(5)?,
        lineitem_url: r.opt_text(6)?,
        memberships_url: r.opt_text(7)?,
        sync_error: r.opt_text(8)?,
    })
}

impl Db {
    /// Records a link as a launch of it says it (its services' URLs as they are now; a
    /// URL the launch does not give is kept), bound to `batch` when given, of the same
    /// course, and the link is bound to none yet (an instructor's binding by hand stays).
    /// The link as it now is.
    pub fn record_lti_link(&self, link: &LinkRow) -> DbResult<LinkRow> {
        self.0.transaction(|c| {
            c.execute(
                "INSERT INTO lti_links (platform_id, link_id, course_id, title, lineitems_url, lineitem_url, memberships_url)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (platform_id, link_id) DO UPDATE SET title = excluded.title,
                     lineitems_url = COALESCE(excluded.lineitems_url, lti_links.lineitems_url),
                     lineitem_url = COALESCE(excluded.lineitem_url, lti_links.lineitem_url),
                     memberships_url = COALESCE(excluded.memberships_url, lti_links.memberships_url)",
                args![
                    link.platform_id,
                    &link.link_id,
                    link.course_id,
                    &link.title,
                    link.lineitems_url.as_deref(),
                    link.lineitem_url.as_deref(),
                    link.memberships_url.as_deref()
                ],
            )?;
            if let Some(batch) = link.batch_id {
                bind(c, link.platform_id, &link.link_id, batch, true)?;
            }
            Ok(row(
                c,
                &format!("SELECT {LINK_COLUMNS} FROM lti_links WHERE platform_id = ?1 AND link_id = ?2"),
                args![link.platform_id, &link.link_id],
                link_row,
            )?
            .expect("the link was just recorded"))
        })
    }

    /// Binds a link to `batch` (of the link's course only): whether it was.
    pub fn bind_lti_link(&self, platform: i64, link: &str, batch: i64) -> DbResult<bool> {
        self.0.run(|c| Ok(bind(c, platform, link, batch, false)? == 1))
    }

    /// The name and email the LMS gave of each student it launched or listed:
    /// `(course, student, name, email)`.
    pub fn lti_contacts(&self) -> DbResult<Vec<(i64, String, String, String)>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT s.course_id, s.student, p.name, p.email FROM lti_students s JOIN lti_people p ON p.platform_id = s.platform_id AND p.sub = s.sub",
                &[],
                |r| Ok((r.int(0)?, r.text(1)?, r.text(2)?, r.text(3)?)),
            )
        })
    }

    /// Keeps a deep linking request until `expires` (and forgets the expired ones).
    pub fn add_lti_deep_link(&self, token_hash: &str, request: &DeepLinkRow, expires: i64) -> DbResult<()> {
        self.0.transaction(|c| {
            c.execute("DELETE FROM lti_deep_links WHERE expires < ?1", args![now()])?;
            c.execute(
                "INSERT INTO lti_deep_links (token_hash, platform_id, deployment_id, course_id, return_url, data, expires) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                args![token_hash, request.platform_id, &request.deployment_id, request.course_id, &request.return_url, request.data.as_deref(), expires],
            )
        })?;
        Ok(())
    }

    /// The live deep linking request of a token; `take` deletes it (it is answered once).
    pub fn lti_deep_link(&self, token_hash: &str, take: bool) -> DbResult<Option<DeepLinkRow>> {
        let sql = if take {
            "DELETE FROM lti_deep_links WHERE token_hash = ?1 AND expires >= ?2 RETURNING platform_id, deployment_id, course_id, return_url, data"
        } else {
            "SELECT platform_id, deployment_id, course_id, return_url, data FROM lti_deep_links WHERE token_hash = ?1 AND expires >= ?2"
        };
        self.0.run(|c| {
            row(c, sql, args![token_hash, now()], |r| {
                Ok(DeepLinkRow { platform_id: r.int(0)?, deployment_id: r.text(1)?, course_id: r.opt_int(2)?, return_url: r.text(3)?, data: r.opt_text(4)? })
            })
        })
    }

    pub fn course_name(&self, course: i64) -> DbResult<Option<String>> {
        self.0.run(|c| row(c, "SELECT name FROM courses WHERE id = ?1", args![course], |r| r.text(0)))
    }

    pub fn lti_link(&self, platform: i64, link: &str) -> DbResult<Option<LinkRow>> {
        self.0.run(|c| row(c, &format!("SELECT {LINK_COLUMNS} FROM lti_links WHERE platform_id = ?1 AND link_id = ?2"), args![platform, link], link_row))
    }

    /// The batches a platform's links in `course` are bound to.
    pub fn lti_bound_batches(&self, platform: i64, course: i64) -> DbResult<Vec<i64>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT DISTINCT batch_id FROM lti_links WHERE platform_id = ?1 AND course_id = ?2 AND batch_id IS NOT NULL ORDER BY batch_id",
                args![platform, course],
                |r| r.int(0),
            )
        })
    }

    /// The links bound to `batch`.
    pub fn lti_links_of(&self, batch: i64) -> DbResult<Vec<LinkRow>> {
        self.0.run(|c| rows(c, &format!("SELECT {LINK_COLUMNS} FROM lti_links WHERE batch_id = ?1 ORDER BY platform_id, link_id"), args![batch], link_row))
    }

    /// Keeps the line item a link's grades go to, once bugrank made it.
    pub fn set_lti_lineitem(&self, platform: i64, link: &str, url: &str) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE lti_links SET lineitem_url = ?3 WHERE platform_id = ?1 AND link_id = ?2", args![platform, link, url]))?;
        Ok(())
    }

    /// Keeps why the last sending of a link's grades failed (`None`: it did not).
    pub fn set_lti_sync_error(&self, platform: i64, link: &str, error: Option<&str>) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE lti_links SET sync_error = ?3 WHERE platform_id = ?1 AND link_id = ?2", args![platform, link, error]))?;
        Ok(())
    }

    /// The students of `course` a platform launched (or listed), by their id there:
    /// `(sub, student)`, by student.
    pub fn lti_students_of(&self, platform: i64, course: i64) -> DbResult<Vec<(String, String)>> {
        self.0.run(|c| {
            rows(c, "SELECT sub, student FROM lti_students WHERE platform_id = ?1 AND course_id = ?2 ORDER BY student", args![platform, course], |r| {
                Ok((r.text(0)?, r.text(1)?))
            })
        })
    }

    /// The grades last posted to a link's line item, by `sub` (`None`: posted as no grade).
    pub fn lti_posted(&self, platform: i64, link: &str) -> DbResult<std::collections::HashMap<String, Option<f64>>> {
        let posted = self.0.run(|c| {
            rows(c, "SELECT sub, points FROM lti_scores WHERE platform_id = ?1 AND link_id = ?2", args![platform, link], |r| Ok((r.text(0)?, r.opt_real(1)?)))
        })?;
        Ok(posted.into_iter().collect())
    }

    /// Keeps the grade just posted for `sub`.
    pub fn set_lti_posted(&self, platform: i64, link: &str, sub: &str, points: Option<f64>) -> DbResult<()> {
        self.0.run(|c| {
            c.execute(
                "INSERT INTO lti_scores (platform_id, link_id, sub, points, posted) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (platform_id, link_id, sub) DO UPDATE SET points = excluded.points, posted = excluded.posted",
                args![platform, link, sub, points, now()],
            )
        })?;
        Ok(())
    }
}

/// Binds a link to a batch of its course (`unbound_only`: only when it is bound to none):
/// the rows changed (0 for another course's batch).
fn bind(c: &mut dyn Conn, platform: i64, link: &str, batch: i64, unbound_only: bool) -> DbResult<u64> {
    c.execute(
        "UPDATE lti_links SET batch_id = ?3 WHERE platform_id = ?1 AND link_id = ?2
             AND EXISTS (SELECT 1 FROM batches b WHERE b.id = ?3 AND b.course_id = lti_links.course_id)
             AND (batch_id IS NULL OR NOT ?4)",
        args![platform, link, batch, unbound_only],
    )
}

/// Keeps the name and email a platform last gave for a person.
fn remember(c: &mut dyn Conn, person: &Person) -> DbResult<u64> {
    c.execute(
        "INSERT INTO lti_people (platform_id, sub, name, email) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (platform_id, sub) DO UPDATE SET name = excluded.name, email = excluded.email",
        args![person.platform, person.sub, person.name, person.email],
    )
}
