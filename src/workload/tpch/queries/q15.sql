-- TPC-H Q15 (qgen template from the tpchgen crate; :k = substitution parameter k,
-- {date D [+-N unit]} = a date literal computed by hakari; {year C}, {substr C START LENGTH} and
-- {limit N} = the dialect's way to write them; a derived table's alias has no AS, which Oracle refuses;
-- the view names its columns by aliases, not a column list, which Berkeley DB's SQLite 3.7 lacks)
create view revenue{stream} as
    select
        l_suppkey as supplier_no,
        sum(l_extendedprice * (1 - l_discount)) as total_revenue
    from
        lineitem
    where
        l_shipdate >= {date :1}
        and l_shipdate < {date :1 +3 month}
    group by
        l_suppkey;
select
    s_suppkey,
    s_name,
    s_address,
    s_phone,
    total_revenue
from
    supplier,
    revenue{stream}
where
    s_suppkey = supplier_no
    and total_revenue = (
        select
            max(total_revenue)
        from
            revenue{stream}
    )
order by
    s_suppkey;

drop view revenue{stream};
