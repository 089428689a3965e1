rchar: 32242772948
wchar: 13657
syscr: 246211
syscw: 5
read_bytes: 57344
write_bytes: 36864
cancelled_write_bytes: 0
