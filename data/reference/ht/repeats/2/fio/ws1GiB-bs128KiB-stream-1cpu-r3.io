rchar: 33523477501
wchar: 13657
syscr: 255981
syscw: 5
read_bytes: 417792
write_bytes: 32768
cancelled_write_bytes: 0
