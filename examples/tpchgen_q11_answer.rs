//! The reproduction behind a comment in src/workload/tpch/validate.rs: the SF 1 answer to Q11
//! that the `tpchgen` crate embeds (`tpchgen::q_and_a::answers_sf1`) against TPC's own answer
//! file (TPC-H Tools v2.17.3 `dbgen/answers/q11.out`, kept in src/workload/tpch/answers/).
//! Prints how many rows differ and the first few of them.
//!
//!   cargo run --release --example tpchgen_q11_answer

fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('|').map(|f| f.trim().to_string()).collect())
        .collect()
}

fn main() {
    let crate_answer = rows(tpchgen::q_and_a::answers_sf1::answer(11).expect("Q11 is embedded"));
    let tpc = rows(include_str!(
        "../src/workload/tpch/answers/sf1_tpc_official/q11.out"
    ));
    let differing: Vec<(&Vec<String>, &Vec<String>)> = tpc
        .iter()
        .zip(&crate_answer)
        .skip(1) // the header
        .filter(|(a, b)| a != b)
        .collect();
    println!(
        "Q11 at SF 1: TPC's file has {} rows, the tpchgen crate {}; {} rows differ",
        tpc.len() - 1,
        crate_answer.len() - 1,
        differing.len()
    );
    for (a, b) in differing.iter().take(3) {
        println!("  TPC {}   tpchgen {}", a.join("|"), b.join("|"));
    }
}
