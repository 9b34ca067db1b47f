module inv.local/test-scanner

go 1.22
