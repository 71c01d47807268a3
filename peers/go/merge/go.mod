module zerolab/peers/go/merge

go 1.19
