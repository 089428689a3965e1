rchar: 87196281961
wchar: 18969
syscr: 665494
syscw: 5
read_bytes: 708608
write_bytes: 20480
cancelled_write_bytes: 0
