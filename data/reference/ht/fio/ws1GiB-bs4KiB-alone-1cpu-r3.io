rchar: 21732084711
wchar: 13665
syscr: 5305879
syscw: 5
read_bytes: 196608
write_bytes: 8192
cancelled_write_bytes: 0
