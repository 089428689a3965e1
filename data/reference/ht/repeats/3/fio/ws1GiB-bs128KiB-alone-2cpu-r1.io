rchar: 95351712733
wchar: 18966
syscr: 727697
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
