rchar: 33895197662
wchar: 13662
syscr: 258816
syscw: 5
read_bytes: 110592
write_bytes: 32768
cancelled_write_bytes: 0
