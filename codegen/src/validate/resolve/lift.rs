//! The schema's spellings of byte order, layout and display as the IR's own types: the schema
//! layer (what YAML says) and the IR (what the backends read) know nothing of each other.

use crate::ir::{Display, Endian, Layout};
use crate::schema::{DisplayDef, EndianDef, LayoutDef};

impl From<EndianDef> for Endian {
    fn from(e: EndianDef) -> Self {
        match e {
            EndianDef::Little => Endian::Little,
            EndianDef::Big => Endian::Big,
        }
    }
}

impl From<LayoutDef> for Layout {
    fn from(l: LayoutDef) -> Self {
        match l {
            LayoutDef::Bytes => Layout::Bytes,
            LayoutDef::LsbBits => Layout::LsbBits,
            LayoutDef::MsbBits => Layout::MsbBits,
        }
    }
}

impl From<DisplayDef> for Display {
    fn from(d: DisplayDef) -> Self {
        match d {
            DisplayDef::Dec => Display::Dec,
            DisplayDef::Hex => Display::Hex,
            DisplayDef::Bin => Display::Bin,
        }
    }
}
