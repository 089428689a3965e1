rchar: 42629966800
wchar: 13662
syscr: 325459
syscw: 5
read_bytes: 692224
write_bytes: 45056
cancelled_write_bytes: 0
