module zerolab/peers/go/oid

go 1.19
