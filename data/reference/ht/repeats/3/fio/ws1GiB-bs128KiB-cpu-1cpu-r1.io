rchar: 25999027102
wchar: 13656
syscr: 198574
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
