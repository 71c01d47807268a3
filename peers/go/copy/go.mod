module zerolab/peers/go/copy

go 1.19
