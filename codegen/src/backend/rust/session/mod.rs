//! What spans more than one message: conversation state, joins, openings, reassembly, TCP framing.

mod announce;
mod carriers;
mod conversation;
mod facts;
mod joined;
mod joins;
mod reassembly;
mod state;
mod tcp;

pub(crate) use joined::JoinItems;

use super::*;

impl<'p> Gen<'p> {
    /// A statement that sets (when `on` holds) or clears the flag bit `e` of the struct `sid` value
    /// `var`, for the chunkers and splitters that mark pieces; `None` when `e` is not a flag bit.
    pub(crate) fn set_flag_bit(
        &self,
        sid: StructId,
        e: &Expr,
        var: TokenStream,
        on: Option<TokenStream>,
    ) -> Option<TokenStream> {
        let Expr::FlagBit(path, mask) = e else {
            return None;
        };
        if path.len() != 1 {
            return None;
        }
        let flags = ident(&path[0].name);
        let Ty::Flags(id) = &self.p.structs[sid].fields[path[0].field].ty else {
            return None;
        };
        let bit = self.flag_const(&self.p.flags[*id], *mask);
        Some(match on {
            None => quote! { #var.#flags.insert(#bit); },
            Some(on) => quote! { #var.#flags.set(#bit, #on); },
        })
    }
}
