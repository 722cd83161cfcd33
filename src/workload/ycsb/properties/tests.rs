use super::*;
use crate::workload::ycsb::presets::default_params;

fn props(text: &str) -> Properties {
    let mut p = Properties::new();
    parse(text, "w", &mut p).unwrap();
    p
}

fn read_text(text: &str) -> Result<Read> {
    read(&props(text), "w", default_params())
}

#[test]
fn javas_property_lines_read() {
    let p = props(
        "# a comment\n! another\n\nrecordcount=1000\noperationcount : 50\n  fieldcount 4\n\
         requestdistribution=\\\n   latest\nempty=\n",
    );
    let value = |k: &str| p[k].value.as_str();
    assert_eq!(value("recordcount"), "1000");
    assert_eq!(value("operationcount"), "50");
    assert_eq!(value("fieldcount"), "4");
    assert_eq!(value("requestdistribution"), "latest");
    assert_eq!(value("empty"), "");
    assert_eq!(p["fieldcount"].from, "w:6");
    let mut q = Properties::new();
    let e = parse("recordcount=1\nlonely\n", "f", &mut q).unwrap_err();
    assert_eq!(e.to_string(), "f:2: 'lonely' is no property (key=value)");
    assert!(parse_one("nokey", &mut q).is_err());
    parse_one("recordcount=7", &mut q).unwrap();
    assert_eq!(q["recordcount"].value, "7");
}

#[test]
fn what_the_files_leave_out_is_core_workloads_default() {
    let r = read_text("recordcount=10\n").unwrap();
    let mix = &r.params.mixes[0];
    assert_eq!(mix.proportions, [0.95, 0.05, 0.0, 0.0, 0.0]);
    assert_eq!(mix.distribution, Distribution::Uniform);
    assert_eq!(r.params.max_scan_length, 1000);
    assert_eq!((r.params.field_count, r.params.field_length), (10, 100));
    assert_eq!(r.params.records, 10);
    let p = &r.params;
    assert_eq!(
        (p.field_lengths, p.min_field_length),
        (LengthDistribution::Constant, 1)
    );
    assert_eq!(
        (p.scan_lengths, p.min_scan_length),
        (LengthDistribution::Uniform, 1)
    );
    assert!(p.read_all_fields && !p.write_all_fields);
    assert_eq!(
        (p.exponential.percentile, p.exponential.frac),
        (95.0, 0.857_142_857_1)
    );
    assert!(r.warnings.is_empty() && r.target.is_none());
}

#[test]
fn lengths_fields_read_and_written_and_the_exponential_land_in_the_parameters() {
    let r = read_text(
        "requestdistribution=EXPONENTIAL\nexponential.percentile=90\nexponential.frac=0.5\n\
         fieldlengthdistribution=uniform\nminfieldlength=10\nfieldlength=20\n\
         scanlengthdistribution=zipfian\nminscanlength=3\nmaxscanlength=30\n\
         readallfields=false\nwriteallfields=TRUE\n",
    )
    .unwrap();
    let p = &r.params;
    assert_eq!(p.mixes[0].distribution, Distribution::Exponential);
    assert_eq!((p.exponential.percentile, p.exponential.frac), (90.0, 0.5));
    assert_eq!(
        (p.field_lengths, p.min_field_length, p.field_length),
        (LengthDistribution::Uniform, 10, 20)
    );
    assert_eq!(
        (p.scan_lengths, p.min_scan_length, p.max_scan_length),
        (LengthDistribution::Zipfian, 3, 30)
    );
    assert!(!p.read_all_fields && p.write_all_fields);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let zipf = read_text("fieldlengthdistribution=zipfian\n").unwrap();
    assert_eq!(zipf.params.field_lengths, LengthDistribution::Zipfian);
}

#[test]
fn every_property_hakari_takes_lands_in_its_parameters() {
    let r = read_text(
        "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=500\noperationcount=0\n\
         maxexecutiontime=30\nreadproportion=0\nupdateproportion=0\nscanproportion=0.95\n\
         insertproportion=0.05\nrequestdistribution=zipfian\nmaxscanlength=20\nfieldcount=3\n\
         fieldlength=50\nthreadcount=4\ntarget=250\nreadallfields=true\n\
         hotspotdatafraction=0.1\nhotspotopnfraction=0.9\ninsertorder=ordered\nzeropadding=12\n\
         db=site.ycsb.BasicDB\n",
    )
    .unwrap();
    let p = &r.params;
    assert_eq!(p.mixes[0].proportions, [0.0, 0.0, 0.05, 0.95, 0.0]);
    assert_eq!(p.mixes[0].distribution, Distribution::Zipfian);
    assert_eq!(
        (p.records, p.operations, p.duration_secs),
        (500, None, 30.0)
    );
    assert_eq!(
        (p.max_scan_length, p.field_count, p.field_length),
        (20, 3, 50)
    );
    assert_eq!(p.threads, [4]);
    assert_eq!(r.target, Some(250.0));
    assert_eq!((p.hotspot.data, p.hotspot.operations), (0.1, 0.9));
    assert_eq!((p.keys.ordered, p.keys.zero_padding), (true, 12));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn unknown_properties_are_named_and_values_hakari_cannot_honour_refused() {
    let r = read_text("recordcount=5\ncolumnfamily=x\nfoo.bar=1\n").unwrap();
    assert_eq!(
        r.warnings,
        [
            "w:2: columnfamily is not a property hakari knows; it is left out",
            "w:3: foo.bar is not a property hakari knows; it is left out"
        ]
    );
    let refused = |text: &str| read_text(text).err().map(|e| e.to_string()).unwrap();
    assert_eq!(
        refused("fieldlengthdistribution=histogram\n"),
        "w:1: fieldlengthdistribution=histogram: hakari does not read YCSB's histogram files \
         (fieldlengthhistogram); constant, uniform or zipfian"
    );
    assert!(refused("fieldlengthdistribution=pareto\n").contains("constant, uniform or zipfian"));
    assert!(refused("scanlengthdistribution=constant\n").contains("uniform or zipfian"));
    assert_eq!(
        refused("readallfields=yes\n"),
        "w:1: readallfields=yes: true or false"
    );
    assert!(refused("exponential.percentile=100\n").contains("below 100"));
    assert!(refused("exponential.frac=0\n").contains("above 0"));
    assert!(refused("requestdistribution=sequential\n").contains("hotspot or exponential"));
    assert!(refused("recordcount=ten\n").contains("recordcount=ten is not a whole number"));
    assert!(refused("workload=site.ycsb.workloads.TimeSeriesWorkload\n").contains("CoreWorkload"));
    assert!(refused("readproportion=0\nupdateproportion=0\n").contains("nothing to run"));
    assert!(refused("hotspotopnfraction=1.5\n").contains("a share from 0 to 1"));
    // The default written out is no change.
    assert!(read_text("scanlengthdistribution=UNIFORM\nreadallfields=true\n").is_ok());
    assert!(refused("insertorder=sorted\n").contains("hashed or ordered"));
}

/// insertstart and insertcount: a slice of the records, loaded and chosen from, only by the
/// distributions that stay in it.
#[test]
fn a_slice_of_the_records_is_taken_where_the_distribution_stays_in_it() {
    let sliced = |text: &str| {
        let r = read_text(text).unwrap();
        super::super::check(&r.params).map(|()| r.params.slice())
    };
    let ok = |text: &str| sliced(text).unwrap();
    assert_eq!(
        ok("recordcount=1000\ninsertstart=100\ninsertcount=200\n"),
        100..300
    );
    assert_eq!(ok("recordcount=1000\ninsertstart=400\n"), 400..1000);
    assert_eq!(ok("recordcount=1000\n"), 0..1000);
    let zipf_to_the_end = "recordcount=1000\ninsertstart=500\nrequestdistribution=zipfian\n";
    assert_eq!(ok(zipf_to_the_end), 500..1000);
    let no = |text: &str| sliced(text).unwrap_err().to_string();
    let outside = "recordcount=1000\ninsertstart=900\ninsertcount=200\n";
    assert!(no(outside).contains("must name some of the 1000 records"));
    assert!(no("recordcount=1000\ninsertcount=0\n").contains("must name some"));
    let zipf_short = "recordcount=1000\ninsertcount=500\nrequestdistribution=zipfian\n";
    assert!(no(zipf_short).contains("requestdistribution=zipfian"));
    let latest = "recordcount=1000\ninsertstart=500\nrequestdistribution=latest\n";
    assert!(no(latest).contains("which this run does not load"));
}
