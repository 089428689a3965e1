rchar: 122743270348
wchar: 13666
syscr: 936676
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
