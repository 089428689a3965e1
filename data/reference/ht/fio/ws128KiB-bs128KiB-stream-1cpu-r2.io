rchar: 99944999933
wchar: 13666
syscr: 762740
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
