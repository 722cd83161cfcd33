-- TPC-H Q22 (qgen template from the tpchgen crate; :k = substitution parameter k,
-- {date D [+-N unit]} = a date literal computed by hakari; {year C}, {substr C START LENGTH} and
-- {limit N} = the dialect's way to write them; a derived table's alias has no AS, which Oracle refuses)
select
    cntrycode,
    count(*) as numcust,
    sum(c_acctbal) as totacctbal
from
    (
        select
            {substr c_phone 1 2} as cntrycode,
            c_acctbal
        from
            customer
        where
            {substr c_phone 1 2} in
                (':1', ':2', ':3', ':4', ':5', ':6', ':7')
            and c_acctbal > (
                select
                    avg(c_acctbal)
                from
                    customer
                where
                    c_acctbal > 0.00
                    and {substr c_phone 1 2} in
                        (':1', ':2', ':3', ':4', ':5', ':6', ':7')
            )
            and not exists (
                select
                    *
                from
                    orders
                where
                    o_custkey = c_custkey
            )
    ) custsale
group by
    cntrycode
order by
    cntrycode;
