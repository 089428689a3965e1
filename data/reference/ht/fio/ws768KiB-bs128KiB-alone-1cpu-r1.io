rchar: 111271062432
wchar: 13666
syscr: 849150
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
