module zerolab/peers/go/make-reuse-clear

go 1.19
