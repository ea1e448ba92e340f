module schmier-arena/sample_bots/go

go 1.19
