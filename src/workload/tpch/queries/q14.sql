-- TPC-H Q14 (qgen template from the tpchgen crate; :k = substitution parameter k,
-- {date D [+-N unit]} = a date literal computed by hakari, {year C} = the year of C per dialect)
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
