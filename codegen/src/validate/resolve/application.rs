//! Pass: applications. Transports' application points, and application schemas on them.

use super::*;

impl<'f> Resolver<'f> {
    pub(crate) fn app_points(&mut self, proto: &Protocol) -> Vec<AppPoint> {
        let mut out = Vec::new();
        for (k, a) in self.file.protocol.applications.iter().enumerate() {
            let yp = format!("protocol.applications.{k}");
            let Some(sid) = self.struct_named(&a.in_type, &format!("{yp}.in")) else {
                continue;
            };
            let id = match &a.id {
                None => None,
                Some(name) => {
                    let Some(id) = self.field_named(proto, sid, name, &format!("{yp}.id")) else {
                        continue;
                    };
                    if !matches!(
                        proto.structs[sid].fields[id].ty,
                        Ty::Int(_) | Ty::VarInt(VarInt::Leb128)
                    ) {
                        self.r.error(
                            Code::E0901,
                            &format!("{yp}.id"),
                            format!("'{name}' must be an unsigned integer"),
                            None,
                        );
                    }
                    Some(id)
                }
            };
            let Some(payload) = self.field_named(proto, sid, &a.payload, &format!("{yp}.payload"))
            else {
                continue;
            };
            if !matches!(
                proto.structs[sid].fields[payload].ty,
                Ty::Bits | Ty::Bytes(Len::Rest)
            ) {
                self.r.error(
                    Code::E0902,
                    &format!("{yp}.payload"),
                    format!("'{}' must be bytes or bits running to the end", a.payload),
                    None,
                );
            }
            out.push(AppPoint {
                in_struct: sid,
                id,
                payload,
            });
        }
        out
    }

    pub(crate) fn application(&mut self, proto: &Protocol) -> Option<Application> {
        let a = self.file.protocol.application.as_ref()?;
        let t = self.transport.clone()?;
        if t.app_points.is_empty() {
            self.r.error(
                Code::E0903,
                "protocol.application.transport",
                format!(
                    "the transport '{}' declares no 'applications' to plug into",
                    t.name
                ),
                None,
            );
            return None;
        }
        let mut messages = Vec::new();
        for (id, name) in &a.messages {
            if let Some(sid) =
                self.struct_named(name, &format!("protocol.application.messages.{id}"))
            {
                messages.push((*id, sid));
            }
        }
        let payload = t
            .app_points
            .iter()
            .find(|p| matches!(t.structs[p.in_struct].fields[p.payload].ty, Ty::Bits))
            .map_or(Layout::Bytes, |p| t.structs[p.in_struct].layout);
        if payload != proto.layout {
            self.r.error(
                Code::E0904,
                "protocol.layout",
                format!(
                    "an application's layout follows its transport's payloads ({})",
                    payload.name()
                ),
                None,
            );
        }
        let points: Vec<PointInfo> = t
            .app_points
            .iter()
            .map(|p| {
                let s = &t.structs[p.in_struct];
                let id = p.id.map(|id| {
                    let rust = match &s.fields[id].ty {
                        Ty::Int(it) => format!("u{}", it.storage_bits()),
                        _ => "u64".to_string(),
                    };
                    (s.fields[id].name.clone(), rust)
                });
                let skip: Vec<usize> = p.id.into_iter().chain([p.payload]).collect();
                PointInfo {
                    type_name: s.name.clone(),
                    borrows: t.struct_borrows(p.in_struct),
                    id,
                    payload_field: s.fields[p.payload].name.clone(),
                    routes: crate::lower::analysis::routes_to(&t, p.in_struct),
                    params: crate::lower::analysis::point_params(&t, p.in_struct, &skip),
                }
            })
            .collect();
        let carried = t.app_points.iter().any(|p| p.id.is_some());
        let own_id = match (&a.id, carried) {
            (Some(text), false) => {
                let it = self.int_ty(text, "protocol.application.id", Endian::Little);
                if it.is_some_and(|it| it.signed || it.bits % 8 != 0 || it.bits > 32) {
                    self.r.error(
                        Code::E0905,
                        "protocol.application.id",
                        "the message id is an unsigned integer of 1 to 4 bytes",
                        None,
                    );
                }
                it
            }
            (None, false) => {
                self.r.error(Code::E0906,
                    "protocol.application",
                    format!("'{}' carries no message id: say the type of the one your messages start with", t.name),
                    Some("e.g. 'id: u8'".into()),
                );
                None
            }
            (Some(_), true) => {
                self.r.error(
                    Code::E0907,
                    "protocol.application.id",
                    format!("'{}' carries the message id itself", t.name),
                    Some("remove 'id'".into()),
                );
                None
            }
            (None, true) => None,
        };
        let routes: Vec<&[RouteStep]> = points
            .iter()
            .flat_map(|p| p.routes.iter().map(Vec::as_slice))
            .collect();
        let every_datagram_carries = crate::lower::analysis::routes_cover_root(&t, &routes);
        Some(Application {
            every_datagram_carries,
            transport: t.name.clone(),
            transport_crate: t.name.clone(),
            transport_root: t.root().name.clone(),
            transport_root_borrows: t.struct_borrows(t.root),
            layout: payload,
            points,
            messages,
            own_id,
        })
    }
}
