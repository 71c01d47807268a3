module zerolab/peers/go/zero-cost

go 1.19
