rchar: 25361623998
wchar: 13656
syscr: 193710
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
