-- TPC-H Q20 (qgen template from the tpchgen crate; :k = substitution parameter k,
-- {date D [+-N unit]} = a date literal computed by hakari; {year C}, {substr C START LENGTH} and
-- {limit N} = the dialect's way to write them; a derived table's alias has no AS, which Oracle refuses)
select
    s_name,
    s_address
from
    supplier,
    nation
where
    s_suppkey in (
        select
            ps_suppkey
        from
            partsupp
        where
            ps_partkey in (
                select
                    p_partkey
                from
                    part
                where
                    p_name like ':1%'
            )
            and ps_availqty > (
                select
                    0.5 * sum(l_quantity)
                from
                    lineitem
                where
                    l_partkey = ps_partkey
                    and l_suppkey = ps_suppkey
                    and l_shipdate >= {date :2}
                    and l_shipdate < {date :2 +1 year}
            )
    )
    and s_nationkey = n_nationkey
    and n_name = ':3'
order by
    s_name;
