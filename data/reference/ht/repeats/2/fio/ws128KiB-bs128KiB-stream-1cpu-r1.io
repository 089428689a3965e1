rchar: 122802777016
wchar: 13666
syscr: 937130
syscw: 5
read_bytes: 118784
write_bytes: 28672
cancelled_write_bytes: 0
