//! The net file: a header of little-endian u32 values — the magic `LKNN`,
//! the format version, inputs, hidden width, outputs, QA, QB, SCALE and,
//! from version 3, the number of input buckets — then the feature weights
//! (`inputs * hidden` i16, row by input), the feature biases (`hidden`
//! i16), the output weights (`2 * hidden` i16 per output) and the output
//! biases (one i32 per output), and last an FNV-1a 64-bit checksum of
//! everything before it.
//!
//! Version 1 (nets 1 to 3) is 128 wide with one output. Version 2 has the
//! same layout with any width `check_shape` allows and 1 or 8 outputs, the
//! output buckets chosen by piece count (`output_bucket`). Version 3 adds
//! the ninth word, the input buckets (`features`), and `inputs` is 768
//! times it. Each net is written in the oldest version that holds its
//! shape, so that older builds load what they can run.

use super::{
    DEFAULT_HIDDEN, InputBuckets, NetError, Network, QA, QB, SCALE, Shape, check_shape, features,
};

const MAGIC: u32 = u32::from_le_bytes(*b"LKNN");
const HEADER_NAMES: [&str; 9] = [
    "magic",
    "version",
    "inputs",
    "hidden",
    "outputs",
    "QA",
    "QB",
    "SCALE",
    "input buckets",
];

/// The header's length in words in a file of this version.
fn header_words(version: u32) -> usize {
    if version >= 3 { 9 } else { 8 }
}

/// The size of a net file of this shape.
pub(super) fn file_bytes(shape: Shape) -> usize {
    let (h, n) = (shape.hidden, shape.output_buckets);
    header_words(version_of(shape)) * 4 + (shape.inputs() * h + h + n * 2 * h) * 2 + n * 4 + 8
}

/// The file version a net of this shape is written in.
fn version_of(shape: Shape) -> u32 {
    if shape.input_buckets.count() > 1 {
        3
    } else if shape.hidden == DEFAULT_HIDDEN && shape.output_buckets == 1 {
        1
    } else {
        2
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Network {
    /// The file's format version: the oldest that holds the net's shape.
    pub fn version(&self) -> u32 {
        version_of(self.shape)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_as(self.version())
    }

    /// The file in a given format version (tests: a version 2 file of
    /// version 1's shape).
    pub(super) fn to_bytes_as(&self, version: u32) -> Vec<u8> {
        let shape = self.shape;
        let mut out = Vec::with_capacity(file_bytes(shape) + 4);
        let header = [
            MAGIC,
            version,
            shape.inputs() as u32,
            shape.hidden as u32,
            shape.output_buckets as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
            shape.input_buckets.count() as u32,
        ];
        for v in &header[..header_words(version)] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in self
            .feature_weights
            .iter()
            .chain(&self.feature_bias)
            .chain(&self.output_weights)
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.output_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads a net file, refusing one of another architecture, size or
    /// checksum with a message that says which.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() < 8 * 4 {
            return Err(NetError(format!(
                "not a Lasker net: {} bytes, too short for the header",
                bytes.len()
            )));
        }
        let word = |i: usize| u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4"));
        if word(0) != MAGIC {
            return Err(NetError("not a Lasker net (no LKNN magic)".into()));
        }
        let version = word(1);
        if !(1..=3).contains(&version) {
            return Err(NetError(format!(
                "net format version {version}: this build reads versions 1 to 3"
            )));
        }
        let words = header_words(version);
        if bytes.len() < words * 4 {
            return Err(NetError(format!(
                "not a Lasker net: {} bytes, too short for a version {version} header",
                bytes.len()
            )));
        }
        let input_buckets = if version >= 3 {
            let count = word(8) as usize;
            InputBuckets::new(count).ok_or_else(|| {
                NetError(format!(
                    "net has {count} input buckets; this build takes {:?}",
                    features::INPUT_BUCKET_CHOICES
                ))
            })?
        } else {
            InputBuckets::NONE
        };
        let (hidden, buckets) = (word(3) as usize, word(4) as usize);
        // What this build needs for each header word; the width and the
        // outputs are free from version 2 on (within `check_shape`).
        let needed = match version {
            1 => [DEFAULT_HIDDEN as u32, 1],
            _ => [word(3), word(4)],
        };
        let expected = [
            MAGIC,
            version,
            input_buckets.inputs() as u32,
            needed[0],
            needed[1],
            QA as u32,
            QB as u32,
            SCALE as u32,
            input_buckets.count() as u32,
        ];
        for (i, (&expected, name)) in expected[..words].iter().zip(HEADER_NAMES).enumerate() {
            let found = word(i);
            if found != expected {
                return Err(NetError(format!(
                    "net {name} is {found}, this build needs {expected} (file version {version})"
                )));
            }
        }
        check_shape(hidden, buckets)?;
        let shape = Shape {
            input_buckets,
            hidden,
            output_buckets: buckets,
        };
        // A shape written in a newer version than needed is still read
        // (tests write version 2 files of version 1's shape).
        let size = file_bytes(shape) - header_words(version_of(shape)) * 4 + words * 4;
        if bytes.len() != size {
            return Err(NetError(format!(
                "net file is {} bytes, expected {size} for a net {shape} (truncated or padded)",
                bytes.len()
            )));
        }
        let (body, tail) = bytes.split_at(size - 8);
        let stored = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
        if fnv1a(body) != stored {
            return Err(NetError("net checksum does not match: file corrupt".into()));
        }
        let (weights, biases) = body[words * 4..].split_at(body.len() - words * 4 - buckets * 4);
        let mut values = weights
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| values.by_ref().take(n).collect::<Vec<i16>>();
        let feature_weights = take(shape.inputs() * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(buckets * 2 * hidden);
        let output_bias = biases
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Network::from_parts(
            shape,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )
    }

    pub fn load(path: &std::path::Path) -> Result<Network, NetError> {
        let bytes = std::fs::read(path)
            .map_err(|e| NetError(format!("can't read {}: {e}", path.display())))?;
        Network::from_bytes(&bytes).map_err(|e| NetError(format!("{}: {e}", path.display())))
    }
}
