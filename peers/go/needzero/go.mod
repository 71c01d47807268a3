module zerolab/peers/go/needzero

go 1.19
