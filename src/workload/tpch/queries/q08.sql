-- TPC-H Q8 (qgen template from the tpchgen crate; :k = substitution parameter k,
-- {date D [+-N unit]} = a date literal computed by hakari; {year C}, {substr C START LENGTH} and
-- {limit N} = the dialect's way to write them; a derived table's alias has no AS, which Oracle refuses)
select
    o_year,
    sum(case
        when nation = ':1' then volume
        else 0
    end) / sum(volume) as mkt_share
from
    (
        select
            {year o_orderdate} as o_year,
            l_extendedprice * (1 - l_discount) as volume,
            n2.n_name as nation
        from
            part,
            supplier,
            lineitem,
            orders,
            customer,
            nation n1,
            nation n2,
            region
        where
            p_partkey = l_partkey
            and s_suppkey = l_suppkey
            and l_orderkey = o_orderkey
            and o_custkey = c_custkey
            and c_nationkey = n1.n_nationkey
            and n1.n_regionkey = r_regionkey
            and r_name = ':2'
            and s_nationkey = n2.n_nationkey
            and o_orderdate between {date 1995-01-01} and {date 1996-12-31}
            and p_type = ':3'
    ) all_nations
group by
    o_year
order by
    o_year;
