-- TPC-H Q14 (qgen template from the tpchgen crate; :k = substitution parameter k,
-- {date D [+-N unit]} = a date literal computed by hakari; {year C}, {substr C START LENGTH} and
-- {limit N} = the dialect's way to write them; a derived table's alias has no AS, which Oracle refuses)
select
    100.00 * sum(case
        when p_type like 'PROMO%'
            then l_extendedprice * (1 - l_discount)
        else 0
    end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from
    lineitem,
    part
where
    l_partkey = p_partkey
    and l_shipdate >= {date :1}
    and l_shipdate < {date :1 +1 month};
