-- TPC-H Q6 (qgen template from the tpchgen crate; :k = substitution parameter k,
-- {date D [+-N unit]} = a date literal computed by hakari; {year C}, {substr C START LENGTH} and
-- {limit N} = the dialect's way to write them; a derived table's alias has no AS, which Oracle refuses)
-- :4 and :5 are DISCOUNT - 0.01 and DISCOUNT + 0.01 (:2), computed by hakari as decimals
select
    sum(l_extendedprice * l_discount) as revenue
from
    lineitem
where
    l_shipdate >= {date :1}
    and l_shipdate < {date :1 +1 year}
    and l_discount between :4 and :5
    and l_quantity < :3;
