//! The trainer's tests.

use std::path::{Path, PathBuf};

use super::model::{EVAL_SCALE, Layout, Objective};
use super::*;
use crate::datagen;
use crate::trainingdata::{self, ChessBoard};
use lasker::nnue::{self, InputBuckets};

/// A few self-play games at a tiny node budget, written as a data file.
fn tiny_data(dir: &Path) -> PathBuf {
    let out = dir.join("tiny.vf");
    let config = datagen::Config {
        out: out.clone(),
        nodes: 300,
        games: Some(24),
        threads: 2,
        ..datagen::Config::default()
    };
    datagen::run(&config).unwrap();
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lasker-train-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn training_lowers_the_loss_and_a_resumed_run_ends_where_a_whole_one_does() {
    let dir = scratch("resume");
    let data = tiny_data(&dir);
    let config = |out: &str, epochs| Config {
        data: vec![data.clone()],
        out: dir.join(out),
        epochs,
        batch: 256,
        lr: 0.01,
        threads: 2,
        validation: 0.1,
        ..Config::default()
    };
    let records = data::load(&data).unwrap().records;
    let before = Trainer::new(1, Shape::default()).loss(&records, Objective::with_wdl(0.3), 2);
    let whole = run(&config("whole", 4)).unwrap();
    let trained = Trainer::load_checkpoint(&dir.join("whole/checkpoint.bin"))
        .unwrap()
        .loss(&records, Objective::with_wdl(0.3), 2);
    assert!(trained < before * 0.9, "loss {trained}, untrained {before}");

    let first_part = Config {
        stop_after: Some(2),
        ..config("parts", 4)
    };
    run(&first_part).unwrap();
    let resumed = Config {
        resume: Some(dir.join("parts/checkpoint.bin")),
        ..config("parts", 4)
    };
    assert_eq!(run(&resumed).unwrap(), whole);
    let a = fs::read(dir.join("whole/net-4.nnue")).unwrap();
    let b = fs::read(dir.join("parts/net-4.nnue")).unwrap();
    assert!(a == b, "the resumed run's net differs");
    // The exported net loads in the engine.
    Network::from_bytes(&a).unwrap();

    // A file that is not a checkpoint is refused, not trusted.
    fs::write(dir.join("bad.bin"), b"not a checkpoint").unwrap();
    assert!(Trainer::load_checkpoint(&dir.join("bad.bin")).is_err());
    fs::remove_dir_all(&dir).unwrap();
}

/// Games and the records `convert` makes of them give the trainer the
/// same positions, and so the same net.
#[test]
fn the_trainer_reads_games_and_records_to_the_same_positions() {
    let dir = scratch("formats");
    let games = tiny_data(&dir);
    let records = dir.join("tiny.bin");
    let args = [
        "--out".to_string(),
        records.display().to_string(),
        games.display().to_string(),
    ];
    data::convert(&args).unwrap();
    let from_games = data::load(&games).unwrap();
    let from_records = data::load(&records).unwrap();
    assert!(from_games.records.len() > 1_000);
    assert!(from_games.records == from_records.records);
    // They are the records datagen wrote before games: each game's
    // quiet positions, scored for the side to move, with its result.
    let (all, _) = data::read_games(&games).unwrap();
    let expected: Vec<ChessBoard> = all
        .iter()
        .flat_map(|g| {
            data::training_positions(g)
                .map(|(pos, score)| trainingdata::encode(&pos, score, g.result))
        })
        .collect();
    assert!(from_games.records == expected);
    let skipped = from_games.skipped;
    assert!(skipped.noisy > 0 && skipped.in_check > 0, "{skipped:?}");
    assert_eq!(from_records.skipped, data::Skipped::default());

    let config = |data: &Path, out: &str| Config {
        data: vec![data.to_path_buf()],
        out: dir.join(out),
        epochs: 1,
        batch: 256,
        validation: 0.1,
        ..Config::default()
    };
    let loss = run(&config(&games, "from-games")).unwrap();
    assert_eq!(run(&config(&records, "from-records")).unwrap(), loss);
    let net = |out: &str| fs::read(dir.join(out).join("net-1.nnue")).unwrap();
    assert!(net("from-games") == net("from-records"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mirroring_flips_files() {
    for fen in lasker::bench::bench_fens() {
        let pos =
            lasker::position::Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap();
        let record = trainingdata::encode(pos.board(), 17, trainingdata::GameResult::Draw);
        let m = mirrored(&record);
        assert_eq!(mirrored(&m), record);
        let mut board = trainingdata::decode_board(&record);
        board.flip_horizontal();
        assert_eq!(trainingdata::decode_board(&m), board, "{fen}");
        assert_eq!((m.score, m.result), (17, 1));
        assert_eq!(m.ksq, board.king_of(shakmaty::Color::White).unwrap() as u8);
    }
}

#[test]
fn bad_arguments_and_data_are_errors() {
    let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert!(Config::from_args(&args("--data a.bin --out o --epochs 3")).is_ok());
    let scaled = Config::from_args(&args("--data a --out o --wdl 0.3 --scale 300")).unwrap();
    assert_eq!(
        scaled.objective(),
        Objective {
            wdl: 0.3,
            scale: 300.0
        }
    );
    for bad in [
        "--out o",
        "--data a.bin",
        "--data a --out o --wdl 2",
        "--data a --out o --scale 0",
        "--data a --out o --scale -300",
        "--data a --out o --lr x",
        "--data a --out o --resume c.bin --init n.nnue",
        "--data a --out o --grow n.nnue --init n.nnue",
        "--data a --out o --grow n.nnue --resume c.bin",
        "--data a --out o --hidden 100",
        "--data a --out o --hidden 2048",
        "--data a --out o --output-buckets 3",
        "--data a --out o --output-buckets 0",
        "--data a --out o --duplicates some",
    ] {
        assert!(Config::from_args(&args(bad)).is_err(), "{bad}");
    }
    let wide = Config::from_args(&args("--data a --out o --hidden 512 --output-buckets 8"));
    assert_eq!(
        wide.unwrap().shape,
        Shape {
            hidden: 512,
            output_buckets: 8,
            ..Shape::default()
        }
    );
    let plain = Config::from_args(&args("--data a --out o")).unwrap();
    assert_eq!(plain.shape, Shape::default());
    assert!(!plain.keep_duplicates);
    let keep = Config::from_args(&args("--data a --out o --duplicates keep")).unwrap();
    assert!(keep.keep_duplicates);
    assert_eq!((plain.shape.hidden, plain.shape.output_buckets), (128, 1));
    let dir = scratch("bad");
    let config = Config {
        data: vec![dir.join("missing.bin")],
        out: dir.join("out"),
        ..Config::default()
    };
    assert!(run(&config).is_err());
    fs::write(dir.join("short.bin"), [0u8; 64]).unwrap();
    let config = Config {
        data: vec![dir.join("short.bin")],
        ..config
    };
    assert!(run(&config).unwrap_err().contains("too few"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_net_dequantised_for_fine_tuning_quantises_back_to_itself() {
    let net = nnue::embedded();
    let trainer = Trainer::from_network(&net);
    assert!(trainer.quantise() == *net, "the round trip changed the net");
    // The float net evaluates as the quantised one does, to rounding.
    for fen in lasker::bench::bench_fens() {
        let pos =
            lasker::position::Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap();
        let record = trainingdata::encode(pos.board(), 0, trainingdata::GameResult::Draw);
        let float_cp = trainer.output(&record) * EVAL_SCALE;
        let engine_cp =
            net.evaluate_board(shakmaty::Position::board(pos.board()), pos.turn()) as f32;
        assert!(
            (float_cp - engine_cp).abs() <= 3.0,
            "{fen}: {float_cp} against {engine_cp}"
        );
    }
}

/// A net grown wider, given input buckets, or both, starts by computing
/// what it grew from: exactly where neither king stands on files e to h,
/// and on the mirrored board where both do (the bucketed net mirrors it);
/// a shape it cannot grow into is refused, saying both.
#[test]
fn a_grown_net_starts_as_the_net_it_grew_from() {
    let net = nnue::embedded();
    let small = Trainer::from_network(&net);
    let shape = net.shape();
    let four = InputBuckets::new(4).unwrap();
    let wider = Shape {
        hidden: shape.hidden + 256,
        ..shape
    };
    let (mut plain_kings, mut mirrored_kings) = (0, 0);
    for grown_shape in [
        wider,
        Shape {
            input_buckets: four,
            ..shape
        },
        Shape {
            input_buckets: four,
            ..wider
        },
    ] {
        let grown = Trainer::grown_from(&net, grown_shape, 5).unwrap();
        assert_eq!(grown.shape(), grown_shape);
        for fen in lasker::bench::bench_fens() {
            let pos = lasker::position::Position::from_fen(fen, shakmaty::CastlingMode::Standard)
                .unwrap();
            let record = trainingdata::encode(pos.board(), 0, trainingdata::GameResult::Draw);
            let on_e_to_h = |square: u8| square & 7 >= 4;
            let expected = match (on_e_to_h(record.ksq), on_e_to_h(record.opp_ksq)) {
                _ if !grown_shape.input_buckets.mirrors() => small.output(&record),
                (false, false) => {
                    plain_kings += 1;
                    small.output(&record)
                }
                (true, true) => {
                    mirrored_kings += 1;
                    small.output(&mirrored(&record))
                }
                _ => continue,
            };
            let output = grown.output(&record);
            assert!(
                (output - expected).abs() < 1e-5,
                "{grown_shape}, {fen}: {output} against {expected}"
            );
        }
    }
    assert!(
        plain_kings >= 4 && mirrored_kings >= 4,
        "{plain_kings} {mirrored_kings}"
    );
    // The new columns are not all alike: they start from random inputs.
    let grown = Trainer::grown_from(&net, wider, 5).unwrap();
    let column = |j: usize| grown.params[j];
    assert_ne!(column(shape.hidden), column(shape.hidden + 1));

    for (to, why) in [
        (
            Shape {
                output_buckets: 1,
                ..shape
            },
            "output buckets",
        ),
        (
            Shape {
                hidden: shape.hidden - 16,
                ..shape
            },
            "narrower",
        ),
    ] {
        let refused = Trainer::grown_from(&net, to, 5).err().unwrap_or_default();
        assert!(
            refused.contains(&format!("{shape}")) && refused.contains(&format!("{to}")),
            "{why}: {refused}"
        );
    }
    // A bucketed net keeps its buckets: four can't become eight.
    let bucketed = Trainer::grown_from(
        &net,
        Shape {
            input_buckets: four,
            ..shape
        },
        5,
    )
    .unwrap()
    .quantise();
    let eight = Shape {
        input_buckets: InputBuckets::new(8).unwrap(),
        ..shape
    };
    assert!(Trainer::grown_from(&bucketed, eight, 5).is_err());
    let grown_again = Trainer::grown_from(&bucketed, bucketed.shape(), 5).unwrap();
    assert!(grown_again.quantise() == bucketed);
}

/// A 256-wide net with 8 output buckets trains, writes a version 2 net
/// file and a checkpoint of its shape; `--init` and `--resume` take it
/// for that shape and refuse it, saying why, for another.
#[test]
fn wide_nets_with_buckets_train_and_shapes_must_match() {
    let dir = scratch("wide");
    let data = tiny_data(&dir);
    let shape = Shape {
        hidden: 256,
        output_buckets: 8,
        ..Shape::default()
    };
    let config = |out: &str, shape: Shape| Config {
        data: vec![data.clone()],
        out: dir.join(out),
        epochs: 2,
        stop_after: Some(1),
        batch: 256,
        validation: 0.1,
        shape,
        ..Config::default()
    };
    let before = Trainer::new(1, shape);
    run(&config("wide", shape)).unwrap();
    let net = Network::load(&dir.join("wide/net-1.nnue")).unwrap();
    assert_eq!(
        (net.hidden(), net.output_buckets(), net.version()),
        (256, 8, 2)
    );
    let trained = Trainer::load_checkpoint(&dir.join("wide/checkpoint.bin")).unwrap();
    assert_eq!(trained.shape(), shape);
    assert!(trained.quantise() == net);
    // The positions' buckets trained: output weights of more than one
    // bucket moved.
    let l = Layout::of(shape);
    let moved = (0..8)
        .filter(|b| {
            let head = l.w2 + b * 512..l.w2 + (b + 1) * 512;
            trained.params[head.clone()] != before.params[head]
        })
        .count();
    assert!(moved >= 3, "{moved} heads trained");

    let init = |out: &str, shape| Config {
        init: Some(dir.join("wide/net-1.nnue")),
        ..config(out, shape)
    };
    run(&init("again", shape)).unwrap();
    let refused = run(&init("narrow", Shape::default())).unwrap_err();
    assert!(
        refused.contains("--init is a net 256 wide, 1 input bucket, 8 output buckets")
            && refused.contains("one 128 wide, 1 input bucket, 1 output bucket"),
        "{refused}"
    );
    let resume = |shape| Config {
        resume: Some(dir.join("wide/checkpoint.bin")),
        stop_after: None,
        ..config("wide", shape)
    };
    let refused = run(&resume(Shape::default())).unwrap_err();
    assert!(refused.contains("--resume is a net 256 wide"), "{refused}");
    run(&resume(shape)).unwrap();
    assert_eq!(
        Trainer::load_checkpoint(&dir.join("wide/checkpoint.bin"))
            .unwrap()
            .epoch,
        2
    );
    // Net 3 can't start an 8-bucket net.
    let from_net_3 = Config {
        init: Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../nets/net3.nnue"
        ))),
        ..config("from-net-3", shape)
    };
    let refused = run(&from_net_3).unwrap_err();
    assert!(
        refused.contains("128 wide, 1 input bucket, 1 output bucket"),
        "{refused}"
    );

    // A checkpoint of the version before shapes (LKTRAIN1: width, step,
    // epoch) loads as 128 wide with one output.
    // And one of version 2 (LKTRAIN2: width, output buckets, step, epoch)
    // as 128 wide with one output and input bucket.
    let narrow = Trainer::new(3, Shape::default());
    narrow.save_checkpoint(&dir.join("v3.bin")).unwrap();
    let v3 = fs::read(dir.join("v3.bin")).unwrap();
    let mut v1 = b"LKTRAIN1".to_vec();
    v1.extend_from_slice(&v3[16..24]); // the width
    v1.extend_from_slice(&v3[32..]); // step, epoch and the floats
    fs::write(dir.join("v1.bin"), &v1).unwrap();
    let mut v2 = b"LKTRAIN2".to_vec();
    v2.extend_from_slice(&v3[16..32]); // the width and output buckets
    v2.extend_from_slice(&v3[32..]);
    fs::write(dir.join("v2.bin"), &v2).unwrap();
    for old in ["v1.bin", "v2.bin"] {
        let loaded = Trainer::load_checkpoint(&dir.join(old)).unwrap();
        assert_eq!(loaded.shape(), Shape::default());
        assert!(loaded.params == narrow.params);
    }
    // Cut short, it is refused.
    fs::write(dir.join("cut.bin"), &v1[..v1.len() - 4]).unwrap();
    assert!(Trainer::load_checkpoint(&dir.join("cut.bin")).is_err());
    fs::write(dir.join("cut.bin"), &v1[..20]).unwrap();
    assert!(Trainer::load_checkpoint(&dir.join("cut.bin")).is_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn init_from_a_file_that_is_not_a_net_is_an_error() {
    let dir = scratch("init");
    let data = tiny_data(&dir);
    fs::write(dir.join("bad.nnue"), b"LKNN and nothing else").unwrap();
    let config = Config {
        data: vec![data],
        out: dir.join("out"),
        init: Some(dir.join("bad.nnue")),
        epochs: 1,
        batch: 256,
        validation: 0.1,
        ..Config::default()
    };
    assert!(run(&config).unwrap_err().contains("--init"));
    fs::remove_dir_all(&dir).unwrap();
}

/// The trainer's inputs of a record are the engine's of its position, for
/// every layout of input buckets: the side to move's perspective first,
/// then the other side's, each through its own king's view.
#[test]
fn the_trainer_sees_the_inputs_the_engine_sees() {
    use shakmaty::Position as _;
    let mut fens: Vec<&str> = lasker::bench::bench_fens().collect();
    fens.push("8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 b - - 0 1");
    fens.push("4k3/8/8/8/8/8/8/R3K2R b KQ - 0 1");
    for count in nnue::features::INPUT_BUCKET_CHOICES {
        let shape = Shape {
            input_buckets: InputBuckets::new(count).unwrap(),
            ..Shape::default()
        };
        let net = Trainer::new(1, shape).quantise();
        for fen in &fens {
            let pos = lasker::position::Position::from_fen(fen, shakmaty::CastlingMode::Standard)
                .unwrap();
            let record = trainingdata::encode(pos.board(), 0, trainingdata::GameResult::Draw);
            let board = pos.board().board();
            let [ours, theirs] = model::inputs(shape, &record);
            for (perspective, trainer) in [(pos.turn(), ours), (!pos.turn(), theirs)] {
                let view = net.king_view(board, perspective);
                let mut engine: Vec<usize> = board
                    .into_iter()
                    .map(|(square, piece)| view.index(perspective, piece, square))
                    .collect();
                let mut trainer = trainer.to_vec();
                engine.sort_unstable();
                trainer.sort_unstable();
                assert_eq!(
                    engine, trainer,
                    "{count} input buckets, {fen}, {perspective:?}"
                );
            }
        }
    }
}

/// A net with 16 input buckets trains (the loss falls, rows of several
/// buckets move), and its checkpoint and net file keep the shape;
/// `--resume` of another shape is refused.
#[test]
fn a_net_with_input_buckets_trains_and_keeps_its_shape() {
    let dir = scratch("input-buckets");
    let data = tiny_data(&dir);
    let shape = Shape {
        input_buckets: InputBuckets::new(16).unwrap(),
        hidden: 64,
        output_buckets: 8,
    };
    let config = Config {
        data: vec![data.clone()],
        out: dir.join("out"),
        epochs: 3,
        batch: 256,
        lr: 0.01,
        validation: 0.1,
        shape,
        ..Config::default()
    };
    let records = data::load(&data).unwrap().records;
    let before = Trainer::new(1, shape);
    let untrained = before.loss(&records, Objective::SCORES, 2);
    run(&config).unwrap();
    let trained = Trainer::load_checkpoint(&dir.join("out/checkpoint.bin")).unwrap();
    assert_eq!(trained.shape(), shape);
    assert!(trained.loss(&records, Objective::SCORES, 2) < untrained * 0.9);
    let net = Network::load(&dir.join("out/net-3.nnue")).unwrap();
    assert_eq!(net.shape(), shape);
    assert_eq!(net.version(), 3);
    let bucket_moved = |b: usize| {
        let rows = b * 768 * 64..(b + 1) * 768 * 64;
        trained.params[rows.clone()] != before.params[rows]
    };
    let moved = (0..16).filter(|&b| bucket_moved(b)).count();
    assert!(moved >= 4, "{moved} input buckets trained");
    let other = Config {
        resume: Some(dir.join("out/checkpoint.bin")),
        shape: Shape {
            input_buckets: InputBuckets::new(4).unwrap(),
            ..shape
        },
        ..config
    };
    let refused = run(&other).unwrap_err();
    assert!(
        refused.contains("--resume is a net 64 wide, 16 input buckets"),
        "{refused}"
    );
    let bad = Config::from_args(
        &"--data a --out o --input-buckets 3"
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>(),
    );
    assert!(bad.unwrap_err().contains("--input-buckets 3"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
// Indexing by weight is the point: the reference reads five arrays at `i`.
#[allow(clippy::needless_range_loop)]
fn the_update_split_over_threads_is_adamw() {
    // A gradient for a net with a factoriser (clipped weights past the
    // output bias), the update split over three threads: it must equal
    // AdamW written out weight by weight, clipping included.
    let shape = Shape {
        input_buckets: InputBuckets::new(4).unwrap(),
        hidden: 16,
        output_buckets: 8,
    };
    let mut trainer = Trainer::new(7, shape);
    let mut reference = trainer.clone();
    let n = trainer.parameters();
    let mut rng = lasker::rng::Rng::with_stream(3, 4);
    let mut random = |scale: f32| (rng.next_u64() as f64 / u64::MAX as f64 - 0.5) as f32 * scale;
    // Some weights start near the clip so that the step crosses it.
    for w in trainer.params.iter_mut().step_by(97) {
        *w = 1.97;
    }
    reference.params.clone_from(&trainer.params);
    let grad: Vec<f32> = (0..n).map(|_| random(1200.0)).collect();
    let config = Config {
        lr: 0.05,
        threads: 3,
        ..Config::default()
    };
    let positions = 100;
    for _ in 0..2 {
        trainer.step += 1;
        trainer.apply_gradient(&grad, positions, &config, config.lr);
        reference.step += 1;
        let t = reference.step as i32;
        let (c1, c2) = (1.0 - 0.9f32.powi(t), 1.0 - 0.999f32.powi(t));
        for i in 0..n {
            let g = grad[i] / positions as f32;
            let m = &mut reference.m[i];
            *m = 0.9 * *m + 0.1 * g;
            let v = &mut reference.v[i];
            *v = 0.999 * *v + (1.0 - 0.999) * g * g;
            let update = (reference.m[i] / c1) / ((reference.v[i] / c2).sqrt() + 1e-8);
            let w = &mut reference.params[i];
            *w = *w * (1.0 - config.lr * config.weight_decay) - config.lr * update;
            if reference.layout.clipped(i) {
                *w = w.clamp(-1.98, 1.98);
            }
        }
    }
    let close = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-6 * (1.0 + y.abs()))
    };
    assert!(close(&trainer.m, &reference.m));
    assert!(close(&trainer.v, &reference.v));
    assert!(close(&trainer.params, &reference.params));
    // The clip was reached, and held wherever the layout clips.
    let clipped = |i: &usize| trainer.layout.clipped(*i);
    assert!((0..n).filter(clipped).any(|i| trainer.params[i] == 1.98));
    assert!(
        (0..n)
            .filter(clipped)
            .all(|i| trainer.params[i].abs() <= 1.98)
    );
}

#[test]
fn validation_is_a_share_or_a_count_of_positions() {
    let parse = |v: &str| {
        Config::from_args(
            &format!("--data a --out o --validation {v}")
                .split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(parse("0.1").unwrap().held_out(5_000), 500);
    assert_eq!(parse("0.00001").unwrap().held_out(5_000), 1);
    // A count holds out the same last positions however much comes before.
    assert_eq!(parse("227667").unwrap().held_out(19_594_550), 227_667);
    assert_eq!(parse("227667").unwrap().held_out(30_000_000), 227_667);
    for bad in ["0.5", "0.7", "2.5", "-1"] {
        assert!(parse(bad).unwrap_err().contains("--validation"), "{bad}");
    }
}

/// One position's gradient written out plainly, over the whole hidden
/// layer at once: the reference for `batch`'s split passes. Adds to
/// `grad`; returns the squared error.
fn reference_gradient(
    trainer: &Trainer,
    record: &ChessBoard,
    objective: Objective,
    grad: &mut [f32],
) -> f32 {
    let (l, p) = (trainer.layout, &trainer.params);
    let h = l.h;
    let active = model::inputs(trainer.shape(), record);
    let bucket = nnue::output_bucket(record.occ.count_ones(), trainer.shape().output_buckets);
    let mut acc = vec![0.0f32; 2 * h];
    for side in 0..2 {
        for j in 0..h {
            let mut a = p[l.b1 + j];
            for &f in &active[side] {
                a += p[f * h + j] + l.factor_row(f).map_or(0.0, |row| p[row + j]);
            }
            acc[side * h + j] = a;
        }
    }
    // The prediction is sigmoid(out · k), k = 400 / scale: its derivative
    // is p (1 − p) k.
    let k = EVAL_SCALE / objective.scale;
    let predicted = model::sigmoid(trainer.output(record) * k);
    let error = predicted - objective.target(record);
    let g = 2.0 * error * predicted * (1.0 - predicted) * k;
    grad[l.b2 + bucket] += g;
    for side in 0..2 {
        let w2 = l.w2 + (2 * bucket + side) * h;
        for j in 0..h {
            let x = acc[side * h + j];
            grad[w2 + j] += g * model::screlu(x);
            let d = if x > 0.0 && x < 1.0 {
                g * p[w2 + j] * 2.0 * x
            } else {
                0.0
            };
            grad[l.b1 + j] += d;
            for &f in &active[side] {
                grad[f * h + j] += d;
                if let Some(row) = l.factor_row(f) {
                    grad[row + j] += d;
                }
            }
        }
    }
    error * error
}

/// Records for the gradient tests: each bench position 7 times, with
/// scores from −240 to +342 and every result.
fn gradient_records() -> Vec<ChessBoard> {
    let mut records = Vec::new();
    for (i, fen) in lasker::bench::bench_fens().enumerate() {
        let pos =
            lasker::position::Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap();
        for k in 0..7i16 {
            let result = [
                trainingdata::GameResult::BlackWins,
                trainingdata::GameResult::Draw,
                trainingdata::GameResult::WhiteWins,
            ][(i + k as usize) % 3];
            records.push(trainingdata::encode(pos.board(), 97 * k - 240, result));
        }
    }
    records
}

/// The batch's gradient, its hidden layer split over 1 to 5 threads (a
/// net too narrow for them takes fewer), equals the sum of the positions'
/// gradients written out plainly, for plain and bucketed shapes, over
/// several groups of positions, at a scale other than the default.
#[test]
fn the_split_batch_gradient_is_the_sum_of_the_positions_gradients() {
    let records = gradient_records();
    assert!(records.len() > 2 * 128, "{} positions", records.len());
    let objective = Objective {
        wdl: 0.3,
        scale: 300.0,
    };
    let shapes = [(1, 32, 1), (4, 48, 8), (16, 16, 8)];
    for (buckets, hidden, outputs) in shapes {
        let shape = Shape {
            input_buckets: InputBuckets::new(buckets).unwrap(),
            hidden,
            output_buckets: outputs,
        };
        let mut trainer = Trainer::new(5, shape);
        // Bucket rows of their own too, not only the factoriser's.
        for (i, w) in trainer.params[..trainer.layout.b1].iter_mut().enumerate() {
            *w += ((i * 7919) % 101) as f32 * 0.0004 - 0.02;
        }
        let mut reference = vec![0.0f32; trainer.parameters()];
        let reference_loss: f32 = records
            .iter()
            .map(|r| reference_gradient(&trainer, r, objective, &mut reference))
            .sum();
        let nonzero = reference.iter().filter(|&&g| g != 0.0).count();
        assert!(nonzero > 5_000, "{shape}: {nonzero} nonzero");
        for threads in 1..=5 {
            let mut grad = vec![f32::NAN; trainer.parameters()];
            let loss = trainer.batch_gradient(&records, objective, threads, &mut grad);
            assert!(
                (loss - reference_loss).abs() <= 1e-4 * reference_loss,
                "{shape}"
            );
            for (i, (a, b)) in grad.iter().zip(&reference).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-4 * (b.abs() + 1e-3),
                    "{shape}, {threads} threads, parameter {i}: {a} against {b}"
                );
            }
        }
    }
}

#[test]
fn quantised_output_follows_the_float_net() {
    use shakmaty::Position as _;
    for (inputs, hidden, buckets) in [(1, 128, 1), (1, 256, 8), (4, 128, 8), (16, 256, 8)] {
        let shape = Shape {
            input_buckets: InputBuckets::new(inputs).unwrap(),
            hidden,
            output_buckets: buckets,
        };
        let mut trainer = Trainer::new(9, shape);
        // A new net's buckets have no share of their own yet (the
        // trainer's factoriser holds the weights): give them one, so
        // that quantising must add the two.
        let mut rng = lasker::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        for w in &mut trainer.params[..shape.inputs() * hidden] {
            *w += rng.below(1000) as f32 / 10_000.0 - 0.05;
        }
        let net = trainer.quantise();
        let mut errors = Vec::new();
        for fen in lasker::bench::bench_fens() {
            let pos = lasker::position::Position::from_fen(fen, shakmaty::CastlingMode::Standard)
                .unwrap();
            let record =
                crate::trainingdata::encode(pos.board(), 0, crate::trainingdata::GameResult::Draw);
            let float = trainer.output(&record) * lasker::nnue::SCALE as f32;
            let quantised = net.evaluate_board(pos.board().board(), pos.turn());
            // Rounding each output weight to 1/64 moves a random net's
            // output by about 10 cp at most.
            let error = (float - quantised as f32).abs();
            assert!(
                error < 16.0 + float.abs() * 0.02,
                "{shape} {fen}: float {float} quantised {quantised}"
            );
            errors.push(error);
        }
        let mean = errors.iter().sum::<f32>() / errors.len() as f32;
        assert!(mean < 6.0, "{shape}: mean error {mean} cp");
    }
}

/// At the default scale the objective is the trainer's old one: the target
/// `wdl · result + (1 − wdl) · sigmoid(score / 400)`, the prediction
/// `sigmoid(output)`. At another scale the net's centipawns are read
/// alike: a score the search gave predicts itself exactly when the output
/// is that score.
#[test]
fn the_objective_reads_scores_and_outputs_at_one_scale() {
    let pos = lasker::position::Position::default();
    for (score, result) in [
        (-240i16, trainingdata::GameResult::BlackWins),
        (0, trainingdata::GameResult::Draw),
        (173, trainingdata::GameResult::WhiteWins),
    ] {
        let record = trainingdata::encode(pos.board(), score, result);
        let r = f32::from(record.result) / 2.0;
        let plain = Objective::with_wdl(0.3);
        let old = 0.3 * r + 0.7 * model::sigmoid(f32::from(score) / 400.0);
        assert!((plain.target(&record) - old).abs() < 1e-6);
        assert!((plain.predict(0.5) - model::sigmoid(0.5)).abs() < 1e-6);
        let scaled = Objective {
            wdl: 0.0,
            scale: 300.0,
        };
        let output = f32::from(score) / EVAL_SCALE;
        assert!((scaled.predict(output) - scaled.target(&record)).abs() < 1e-6);
        assert!((scaled.target(&record) - model::sigmoid(f32::from(score) / 300.0)).abs() < 1e-6);
    }
}

/// The gradient the batch computes at another scale is the loss's slope:
/// the output biases' entries against finite differences of the loss.
#[test]
fn the_gradient_follows_the_loss_at_another_scale() {
    let records = gradient_records();
    let objective = Objective {
        wdl: 0.3,
        scale: 300.0,
    };
    let shape = Shape {
        input_buckets: InputBuckets::new(1).unwrap(),
        hidden: 32,
        output_buckets: 1,
    };
    let mut trainer = Trainer::new(3, shape);
    let mut grad = vec![0.0f32; trainer.parameters()];
    trainer.batch_gradient(&records, objective, 1, &mut grad);
    let bias = trainer.layout.b2;
    let n = records.len() as f32;
    let eps = 0.01;
    trainer.params[bias] += eps;
    let up = trainer.loss(&records, objective, 1) * n;
    trainer.params[bias] -= 2.0 * eps;
    let down = trainer.loss(&records, objective, 1) * n;
    let numeric = (up - down) / (2.0 * eps);
    assert!(
        (numeric - grad[bias]).abs() <= 0.02 * numeric.abs() + 1e-4,
        "output bias: numeric {numeric}, batch {}",
        grad[bias]
    );
}
