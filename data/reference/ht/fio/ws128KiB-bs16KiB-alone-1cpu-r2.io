rchar: 63847967663
wchar: 13667
syscr: 3897184
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
