rchar: 112314264579
wchar: 18984
syscr: 857110
syscw: 5
read_bytes: 4096
write_bytes: 40960
cancelled_write_bytes: 0
