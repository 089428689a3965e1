rchar: 78205004735
wchar: 13666
syscr: 596875
syscw: 5
read_bytes: 114688
write_bytes: 8192
cancelled_write_bytes: 0
