module zerolab/peers/go/reset-cost

go 1.19
