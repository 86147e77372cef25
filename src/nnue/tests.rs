//! The net's tests: incremental accumulators and the Finny table against a
//! refresh, the kept nets' evaluations, output buckets and the file
//! format. (The quantised output against the trainer's float net is the
//! trainer's test, in `tools/`.)

use super::file::file_bytes;
use super::*;
use crate::position::Position;
use shakmaty::{CastlingMode, Position as _};

/// A net with random weights: every input matters.
fn random_net(seed: u64, hidden: usize, buckets: usize) -> Network {
    random_shaped(seed, 1, hidden, buckets)
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A net of any shape with random weights, in the ranges a trained net's
/// lie in (a feature weight within ±64 of QA's 255, an output weight within
/// ±100 of the ±127 the SIMD product allows).
fn random_shaped(seed: u64, input_buckets: usize, hidden: usize, outputs: usize) -> Network {
    let shape = Shape {
        input_buckets: InputBuckets::new(input_buckets).unwrap(),
        hidden,
        output_buckets: outputs,
    };
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut draw = |range: u64| (xorshift(&mut state) % (2 * range + 1)) as i64 - range as i64;
    let feature_weights = (0..shape.inputs() * hidden)
        .map(|_| draw(64) as i16)
        .collect();
    let feature_bias = (0..hidden).map(|_| draw(64) as i16).collect();
    let output_weights = (0..outputs * 2 * hidden)
        .map(|_| draw(100) as i16)
        .collect();
    let output_bias = (0..outputs).map(|_| draw(20_000) as i32).collect();
    Network::from_parts(
        shape,
        feature_weights,
        feature_bias,
        output_weights,
        output_bias,
    )
    .expect("a random net of a shape this build runs")
}

/// Random games from positions rich in castling, en passant, captures,
/// promotions and king walks, with nets of several widths and every
/// count of input and output buckets; after each move (and some null
/// moves and takebacks) the incremental accumulators equal a refresh
/// from the board, with kings crossing buckets and halves of the board
/// (the Finny table's rebuilds) many times.
#[test]
fn incremental_accumulators_equal_a_refresh() {
    let starts = [
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
        ),
        (
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            CastlingMode::Standard,
        ),
        (
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            CastlingMode::Standard,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            CastlingMode::Standard,
        ),
        // Kings with room to walk.
        (
            "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
            CastlingMode::Standard,
        ),
        // Chess960: king and rooks on other files.
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            CastlingMode::Chess960,
        ),
    ];
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let (mut castles, mut en_passant, mut promotions, mut nulls) = (0, 0, 0, 0);
    let mut rebuilds = 0;
    for (inputs, hidden, buckets, games) in [
        (1, 128, 1, 20),
        (1, 256, 8, 8),
        (1, 512, 8, 4),
        (1, 1024, 1, 2),
        (1, 208, 8, 2),
        (4, 128, 8, 8),
        (4, 768, 8, 2),
        (8, 256, 1, 4),
        (16, 256, 8, 8),
        (16, 1024, 8, 2),
        (16, 208, 1, 2),
    ] {
        let net = random_shaped(3, inputs, hidden, buckets);
        let mut checked = 0;
        for (fen, mode) in starts {
            for _ in 0..games {
                let mut pos = Position::from_fen(fen, mode).unwrap();
                let mut stack = AccumulatorStack::default();
                for _ in 0..60 {
                    let moves = pos.board().legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let m = moves[(xorshift(&mut rng) % moves.len() as u64) as usize];
                    castles += usize::from(m.is_castle());
                    en_passant += usize::from(m.is_en_passant());
                    promotions += usize::from(m.is_promotion());
                    let mover = pos.turn();
                    let before = net.king_view(pos.board().board(), mover);
                    pos.make(m);
                    if net.king_view(pos.board().board(), mover) != before {
                        rebuilds += 1;
                    }
                    if !pos.in_check() && xorshift(&mut rng).is_multiple_of(6) {
                        pos.make_null();
                        nulls += 1;
                    }
                    // Evaluate only now and then: updates span several plies.
                    if xorshift(&mut rng).is_multiple_of(3) {
                        assert_eq!(
                            stack.current(&net, &pos),
                            net.refresh(pos.board().board()),
                            "{}: {}",
                            net.shape(),
                            pos.fen()
                        );
                        assert_eq!(
                            stack.evaluate(&net, &pos),
                            net.evaluate_board(pos.board().board(), pos.turn())
                        );
                        checked += 1;
                    }
                    if xorshift(&mut rng).is_multiple_of(5) {
                        pos.unmake();
                        assert_eq!(stack.current(&net, &pos), net.refresh(pos.board().board()));
                    }
                }
            }
        }
        assert!(checked > games * 25, "{}: {checked} checked", net.shape());
    }
    assert!(
        castles > 5 && en_passant > 0 && promotions > 5 && nulls > 20 && rebuilds > 200,
        "{castles} {en_passant} {promotions} {nulls} {rebuilds}"
    );
}

/// The Finny table's rebuild of a perspective equals a refresh from the
/// board, whatever boards its entries were last made from: random
/// boards of the same king views in turn, each rebuilt from the
/// previous one's entry.
#[test]
fn finny_table_rebuilds_equal_a_refresh() {
    let fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
        "6k1/8/8/8/8/8/8/QQQQQQK1 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K2R b K - 0 1",
    ];
    for inputs in [1, 4, 16] {
        let net = random_shaped(13, inputs, 256, 8);
        let mut table = accumulator::FinnyTable::default();
        for round in 0..3 {
            for fen in fens {
                let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
                let board = pos.board().board();
                let expected = net.refresh(board);
                for (i, perspective) in Color::ALL.into_iter().enumerate() {
                    let mut acc = vec![0; 256];
                    by_width!(256, |W| table.rebuild::<W>(
                        &net,
                        board,
                        perspective,
                        &mut acc
                    ));
                    assert_eq!(
                        acc,
                        expected[i * 256..(i + 1) * 256],
                        "{inputs} input buckets, round {round}: {fen} for {perspective:?}"
                    );
                }
            }
        }
    }
}

/// One stack evaluating with nets of different widths in turn (as after
/// `EvalFile`, with the stack cleared as the evaluator does) gives each
/// net's own evaluation.
#[test]
fn a_stack_follows_a_change_of_width() {
    let pos = Position::from_fen(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        CastlingMode::Standard,
    )
    .unwrap();
    let mut stack = AccumulatorStack::default();
    for (hidden, buckets) in [(128, 1), (512, 8), (208, 1), (256, 8), (128, 1)] {
        let net = random_net(7, hidden, buckets);
        stack.clear();
        assert_eq!(
            stack.evaluate(&net, &pos),
            net.evaluate_board(pos.board().board(), pos.turn())
        );
    }
}

/// Net 3's evaluations of the bench positions, as the build before
/// variable widths and output buckets (741f2c9) printed them with
/// `eval` (net 3 was embedded then; `nets/net3.nnue` keeps it): reading
/// version 1 files and evaluating them is unchanged.
#[test]
fn net_3_evaluates_as_before() {
    const BEFORE: [i32; 42] = [
        -1130, -46, -47, -2, 47, -21, -39, -309, -406, -61, -15, 136, 98, 44, 64, 16, -37, -22,
        190, -16, 317, 142, -94, 124, 10, 95, 391, 92, 91, -179, -16, -130, -69, -253, -120, 46,
        -174, -99, 34, 924, 174, 271,
    ];
    let net = Network::from_bytes(include_bytes!("../../nets/net3.nnue")).unwrap();
    assert_eq!(
        (net.hidden(), net.output_buckets(), net.version()),
        (128, 1, 1)
    );
    let fens: Vec<&str> = crate::bench::bench_fens().collect();
    assert_eq!(fens.len(), BEFORE.len());
    for (fen, before) in fens.into_iter().zip(BEFORE) {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        assert_eq!(
            net.evaluate_board(pos.board().board(), pos.turn()),
            before,
            "{fen}"
        );
        let mut stack = AccumulatorStack::default();
        assert_eq!(stack.evaluate(&net, &pos), before, "{fen}");
    }
}

/// Every net file kept in `nets/` loads and has its row in nets/README.md's
/// table, the embedded one among them, and the net with input buckets (net
/// 11) is read as such and evaluates incrementally as from scratch along a
/// game.
#[test]
fn every_kept_net_loads() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
    let table = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut kept = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "nnue") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        Network::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            table.contains(&format!("`{name}`")),
            "{name} is not in nets/README.md"
        );
        kept.push(name);
    }
    assert!(
        kept.contains(&format!("{}.nnue", super::EMBEDDED_NAME)),
        "{kept:?}"
    );
    let net = Network::load(&dir.join("net11-kb4.nnue")).unwrap();
    assert_eq!(net.input_buckets().count(), 4);
    assert_eq!(
        (net.hidden(), net.output_buckets(), net.version()),
        (256, 8, 3)
    );
    let mut pos = Position::default();
    let mut stack = AccumulatorStack::default();
    let mut rng = 0x1234_5678u64;
    for _ in 0..120 {
        let moves = pos.board().legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.make(moves[(xorshift(&mut rng) % moves.len() as u64) as usize]);
        assert_eq!(
            stack.evaluate(&net, &pos),
            net.evaluate_board(pos.board().board(), pos.turn()),
            "{}",
            pos.fen()
        );
    }
}

#[test]
fn output_buckets_go_by_piece_count() {
    let expected = [
        (2, 0),
        (5, 0),
        (6, 1),
        (9, 1),
        (10, 2),
        (17, 3),
        (29, 6),
        (30, 7),
        (32, 7),
    ];
    for (pieces, bucket) in expected {
        assert_eq!(output_bucket(pieces, 8), bucket, "{pieces} pieces");
        assert_eq!(output_bucket(pieces, 1), 0);
    }
    // Out of the range of legal positions, still a bucket of the net.
    assert_eq!(output_bucket(0, 8), 0);
    assert_eq!(output_bucket(64, 8), 7);
}

/// An 8-bucket net evaluates each position through the head of its
/// piece count: as a one-output net made of that head and the same
/// feature layer does, and not as the nets of the other heads do.
#[test]
fn positions_of_different_piece_counts_use_different_heads() {
    let mut net = random_net(11, 256, 8);
    // Heads apart by their biases too (50 cp from one to the next), so
    // that even a bare board tells them apart.
    for (b, bias) in net.output_bias.iter_mut().enumerate() {
        *bias += (b as i32 * 50 - 175) * QA * QB / SCALE;
    }
    let head = |b: usize| {
        Network::from_parts(
            Shape {
                hidden: 256,
                ..Shape::default()
            },
            net.feature_weights.clone(),
            net.feature_bias.clone(),
            net.output_weights[b * 512..(b + 1) * 512].to_vec(),
            vec![net.output_bias[b]],
        )
        .unwrap()
    };
    let heads: Vec<Network> = (0..8).map(head).collect();
    let fens = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", // 32: bucket 7
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", // 32
        "2r3k1/5pp1/p3p2p/1p1nP3/3P4/P4N1P/1q3PP1/3Q1RK1 b - - 0 25", // 20: bucket 4
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",                // 10: bucket 2
        "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",                  // 10
        "4k3/8/8/8/8/8/8/4K2R b K - 0 1",                           // 3: bucket 0
        "6k1/8/8/8/8/8/8/QQQQQQK1 w - - 0 1",                       // 8: bucket 1
    ];
    let mut buckets_seen = Vec::new();
    for fen in fens {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let board = pos.board().board();
        let bucket = net.output_bucket(board.occupied().count() as u32);
        buckets_seen.push(bucket);
        let eval = net.evaluate_board(board, pos.turn());
        assert_eq!(
            eval,
            heads[bucket].evaluate_board(board, pos.turn()),
            "{fen}"
        );
        assert_eq!(AccumulatorStack::default().evaluate(&net, &pos), eval);
        let others = (0..8).filter(|&b| b != bucket);
        let differ = others
            .filter(|&b| heads[b].evaluate_board(board, pos.turn()) != eval)
            .count();
        assert_eq!(differ, 7, "{fen}: only {differ} other heads differ");
    }
    buckets_seen.sort_unstable();
    buckets_seen.dedup();
    assert_eq!(buckets_seen, [0, 1, 2, 4, 7]);
}

#[test]
fn net_files_round_trip_and_bad_ones_are_refused() {
    // Version 1: 128 wide, one output; the size of net 3's file.
    let net = random_net(5, 128, 1);
    let bytes = net.to_bytes();
    assert_eq!(bytes[4..8], 1u32.to_le_bytes());
    assert_eq!(bytes.len(), include_bytes!("../../nets/net3.nnue").len());
    assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
    // The same net in a version 2 file loads as the same net.
    let v2 = net.to_bytes_as(2);
    assert_eq!(v2[4..8], 2u32.to_le_bytes());
    assert_eq!(Network::from_bytes(&v2).unwrap(), net);

    // Version 2: other widths and 8 outputs.
    for (hidden, buckets) in [(256, 8), (512, 1), (128, 8), (1024, 8), (16, 1)] {
        let wide = random_net(6, hidden, buckets);
        let bytes = wide.to_bytes();
        assert_eq!(bytes[4..8], 2u32.to_le_bytes(), "{hidden} {buckets}");
        assert_eq!(bytes.len(), file_bytes(wide.shape()));
        let loaded = Network::from_bytes(&bytes).unwrap();
        assert_eq!(
            (loaded.hidden(), loaded.output_buckets()),
            (hidden, buckets)
        );
        assert_eq!(loaded, wide);
        assert_eq!(loaded.to_bytes(), bytes);
    }

    // Version 3: input buckets, the count in a ninth header word.
    for (inputs, hidden, buckets) in [(4, 128, 1), (8, 256, 8), (16, 512, 8)] {
        let bucketed = random_shaped(8, inputs, hidden, buckets);
        let bytes = bucketed.to_bytes();
        assert_eq!(bytes[4..8], 3u32.to_le_bytes());
        assert_eq!(bytes[8..12], (768 * inputs as u32).to_le_bytes());
        assert_eq!(bytes[32..36], (inputs as u32).to_le_bytes());
        assert_eq!(bytes.len(), file_bytes(bucketed.shape()));
        let loaded = Network::from_bytes(&bytes).unwrap();
        assert_eq!(loaded, bucketed);
        assert_eq!(loaded.input_buckets().count(), inputs);
    }
    // A version 3 file of one input bucket is the plain net.
    assert_eq!(Network::from_bytes(&net.to_bytes_as(3)).unwrap(), net);
    let v3 = random_shaped(8, 16, 128, 8).to_bytes();
    let refused = |b: &[u8]| Network::from_bytes(b).unwrap_err().0;
    assert!(refused(&bytes[..bytes.len() - 1]).contains("truncated"));
    assert!(refused(&bytes[..10]).contains("too short"));
    let mut corrupt = bytes.clone();
    corrupt[1000] ^= 1;
    assert!(refused(&corrupt).contains("checksum"));
    let with_word = |bytes: &[u8], i: usize, value: u32| {
        let mut b = bytes.to_vec();
        b[i * 4..i * 4 + 4].copy_from_slice(&value.to_le_bytes());
        b
    };
    // A version 1 file must be 128 wide with one output.
    assert!(refused(&with_word(&bytes, 3, 256)).contains("hidden is 256"));
    assert!(refused(&with_word(&bytes, 4, 8)).contains("outputs is 8"));
    assert!(refused(&with_word(&bytes, 1, 4)).contains("version 4"));
    assert!(refused(&with_word(&bytes, 5, 256)).contains("QA is 256"));
    // A version 2 file's shape must be one this build runs.
    for (hidden, buckets, message) in [
        (100, 1, "multiple of 16"),
        (0, 1, "multiple of 16"),
        (2048, 1, "multiple of 16"),
        (u32::MAX, 1, "multiple of 16"),
        (256, 3, "3 output buckets"),
        (256, 0, "0 output buckets"),
        (256, u32::MAX, "output buckets"),
    ] {
        let b = with_word(&with_word(&v2, 3, hidden), 4, buckets);
        assert!(
            refused(&b).contains(message),
            "{hidden} {buckets}: {}",
            refused(&b)
        );
    }
    // A version 3 file's input buckets must be a map this build has,
    // and its inputs 768 times them.
    for (inputs, words, message) in [
        (5, 768 * 5, "5 input buckets"),
        (0, 0, "0 input buckets"),
        (16, 768 * 4, "inputs is 3072"),
        (4, 768 * 4, "truncated"),
    ] {
        let b = with_word(&with_word(&v3, 8, inputs), 2, words);
        assert!(refused(&b).contains(message), "{inputs}: {}", refused(&b));
    }
    assert!(refused(&v3[..34]).contains("too short"));
    // A version 2 header whose shape disagrees with the file's size.
    assert!(refused(&with_word(&v2, 3, 256)).contains("truncated"));
    // An output weight beyond ±127, with a good checksum.
    let mut loud = random_net(5, 256, 8);
    loud.output_weights[1000] = 128;
    assert!(refused(&loud.to_bytes()).contains("±127"));
    assert!(refused(b"GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE").contains("magic"));
    assert!(Network::load(std::path::Path::new("/no/such/net.nnue")).is_err());
    // The embedded net is a valid one, and writing it gives back its
    // file byte for byte (the same layout both ways).
    assert_eq!(embedded().to_bytes(), EMBEDDED);
}
