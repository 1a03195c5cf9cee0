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

pub(crate) use announce::StatefulDraws;
pub(crate) use carriers::Carriers;
pub(crate) use conversation::ConversationModule;
pub(crate) use facts::FactsModule;
pub(crate) use joined::{JoinItems, JoinedItems};
pub(crate) use joins::JoinsModule;
pub(crate) use reassembly::ReassemblyModule;
pub(crate) use state::StateModule;
pub(crate) use tcp::TcpModule;

use super::*;
