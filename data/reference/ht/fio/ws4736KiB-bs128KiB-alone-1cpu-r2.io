rchar: 97119218618
wchar: 13667
syscr: 741180
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
