rchar: 75436633130
wchar: 18969
syscr: 575756
syscw: 5
read_bytes: 151552
write_bytes: 20480
cancelled_write_bytes: 0
