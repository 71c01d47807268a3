module zerolab/peers/go/append-int

go 1.19
